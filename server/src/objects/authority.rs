//! The cluster's certificate authority, made when the server starts, as kubeadm makes
//! `/etc/kubernetes/pki/ca.crt` (a self-signed CA named `kubernetes`, valid for ten years).
//! Its certificate is what every namespace's `kube-root-ca.crt` ConfigMap publishes
//! (`controllers::root_ca`); it is kept here, in one place, so that serving over TLS can use
//! the same authority.

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose,
};

/// A certificate authority: its certificate and private key, PEM-encoded.
#[derive(Clone, Debug)]
pub(crate) struct Authority {
    /// The CA certificate (`-----BEGIN CERTIFICATE-----`), as `ca.crt` holds it.
    pub(crate) certificate_pem: String,
    /// The same certificate, DER-encoded (what a TLS listener trusts client certificates by).
    pub(crate) certificate_der: Vec<u8>,
    /// The CA's private key (PKCS#8), for signing serving and client certificates.
    pub(crate) key_pem: String,
    /// What the CA certificate says of itself, to sign others with.
    params: CertificateParams,
}

/// A serving certificate and its key, DER-encoded (what a TLS listener is configured with).
#[derive(Clone, Debug)]
pub(crate) struct Serving {
    pub(crate) certificate_der: Vec<u8>,
    pub(crate) key_der: Vec<u8>,
}

impl Authority {
    /// A new authority with a fresh ECDSA P-256 key: `CN=kubernetes`, `CA:TRUE` (critical),
    /// key usages digitalSignature, keyEncipherment and keyCertSign (critical), a Subject Key
    /// Identifier and the DNS name `kubernetes`, as kubeadm's `certs ca` phase writes them
    /// (self-signed, so no Authority Key Identifier, as Go's `x509.CreateCertificate` leaves
    /// it out).
    pub(crate) fn new() -> Result<Authority, String> {
        let key = KeyPair::generate().map_err(|e| format!("the CA key: {e}"))?;
        let mut params = CertificateParams::new(vec!["kubernetes".to_owned()])
            .map_err(|e| format!("the CA certificate: {e}"))?;
        let mut name = DistinguishedName::new();
        name.push(DnType::CommonName, "kubernetes");
        params.distinguished_name = name;
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
            KeyUsagePurpose::KeyCertSign,
        ];
        let today = jiff::Timestamp::now()
            .to_zoned(jiff::tz::TimeZone::UTC)
            .date();
        let (year, month, day) = (i32::from(today.year()), today.month(), today.day());
        let (month, day) = (month.unsigned_abs(), day.unsigned_abs());
        params.not_before = rcgen::date_time_ymd(year, month, day);
        params.not_after = rcgen::date_time_ymd(year + 10, month, day.min(28));
        let certificate = params
            .self_signed(&key)
            .map_err(|e| format!("the CA certificate: {e}"))?;
        Ok(Authority {
            certificate_pem: certificate.pem(),
            certificate_der: certificate.der().to_vec(),
            key_pem: key.serialize_pem(),
            params,
        })
    }

    /// A serving certificate signed by the authority for the API server's names, as
    /// kubeadm's `certs apiserver` phase makes `apiserver.crt` (`CN=kube-apiserver`, server
    /// auth), with the loopback names this server is reached by. Like every certificate the
    /// authority signs ([`Authority::sign`]), it names its issuer's key.
    pub(crate) fn serving(&self) -> Result<Serving, String> {
        let names = [
            "localhost",
            "127.0.0.1",
            "::1",
            "kubernetes",
            "kubernetes.default",
            "kubernetes.default.svc",
            "kubernetes.default.svc.cluster.local",
        ];
        let mut params = CertificateParams::new(names.map(str::to_owned).to_vec())
            .map_err(|e| format!("the serving certificate: {e}"))?;
        let mut name = DistinguishedName::new();
        name.push(DnType::CommonName, "kube-apiserver");
        params.distinguished_name = name;
        params.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
        ];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        let (certificate, key) = self.sign(params, "serving")?;
        Ok(Serving {
            certificate_der: certificate.der().to_vec(),
            key_der: key.serialize_der(),
        })
    }
}

impl Authority {
    /// A certificate of `params` for a fresh ECDSA P-256 key, signed by the authority and
    /// valid as long as it; `what` names it in errors (`serving`, `client`). As Go's
    /// `x509.CreateCertificate` writes kubeadm's leaves: an Authority Key Identifier (the
    /// CA's Subject Key Identifier, which strict verifiers require: OpenSSL's
    /// `X509_V_FLAG_X509_STRICT`, Python 3.13's default), and `CA:FALSE`, critical.
    fn sign(
        &self,
        mut params: CertificateParams,
        what: &str,
    ) -> Result<(rcgen::Certificate, KeyPair), String> {
        let ca_key = KeyPair::from_pem(&self.key_pem).map_err(|e| format!("the CA key: {e}"))?;
        let issuer = Issuer::from_params(&self.params, ca_key);
        let key = KeyPair::generate().map_err(|e| format!("the {what} key: {e}"))?;
        params.not_before = self.params.not_before;
        params.not_after = self.params.not_after;
        params.use_authority_key_identifier_extension = true;
        params.is_ca = IsCa::ExplicitNoCa;
        let certificate = params
            .signed_by(&key, &issuer)
            .map_err(|e| format!("the {what} certificate: {e}"))?;
        Ok((certificate, key))
    }
}

/// A client certificate and its key, PEM-encoded (what a kubeconfig's
/// `client-certificate-data` and `client-key-data` hold).
#[derive(Clone, Debug)]
pub(crate) struct Client {
    pub(crate) certificate_pem: String,
    pub(crate) key_pem: String,
}

impl Authority {
    /// A client certificate signed by the authority for the user `name` in the group
    /// `group` (`CN=name, O=group`, client auth), as kubeadm's `kubeconfig admin` phase makes
    /// the one in `admin.conf`; the API server's x509 authenticator reads the user back from
    /// the subject.
    pub(crate) fn client(&self, name: &str, group: &str) -> Result<Client, String> {
        let mut params = CertificateParams::default();
        let mut subject = DistinguishedName::new();
        subject.push(DnType::OrganizationName, group);
        subject.push(DnType::CommonName, name);
        params.distinguished_name = subject;
        params.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
        ];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        let (certificate, key) = self.sign(params, "client")?;
        Ok(Client {
            certificate_pem: certificate.pem(),
            key_pem: key.serialize_pem(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Authority;

    #[test]
    fn the_authority_is_a_pem_certificate_and_key() {
        let authority = Authority::new().unwrap();
        assert!(
            authority
                .certificate_pem
                .starts_with("-----BEGIN CERTIFICATE-----\n")
        );
        assert!(
            authority
                .certificate_pem
                .ends_with("-----END CERTIFICATE-----\n")
        );
        assert!(authority.key_pem.contains("PRIVATE KEY"));
        assert_ne!(
            Authority::new().unwrap().certificate_pem,
            authority.certificate_pem
        );
    }
}
