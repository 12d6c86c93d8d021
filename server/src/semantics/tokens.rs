//! Service account tokens as the API server issues and checks them: the one signing key
//! (made when the server starts; an ES256 key, kept here and nowhere else), the claims of a
//! token (`pkg/serviceaccount/claims.go`, `Claims`), the JWT written as go-jose writes it
//! (`pkg/serviceaccount/jwt.go`, `GenerateToken`), its check (`jwt.go`,
//! `AuthenticateToken`, and `claims.go`, `Validate`), and the service account issuer
//! discovery documents (`pkg/serviceaccount/openidmetadata.go`).
//!
//! go-jose writes every JSON object of a token through a Go map, so keys come sorted at
//! every level; [`sorted`] does the same.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use kubeforge_runtime::schema::gofmt::quote_list;
use ring::rand::{SecureRandom, SystemRandom};
use ring::signature::{self, ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair};
use serde_json::{Map, Value, json};

/// The issuer kind (and `kubeadm`) configure: `--service-account-issuer`; also the API
/// server's audience when `--api-audiences` is not given.
pub(crate) const ISSUER: &str = "https://kubernetes.default.svc.cluster.local";

/// The issuer of the tokens the token controller puts in a Secret (`LegacyIssuer`).
pub(crate) const LEGACY_ISSUER: &str = "kubernetes/serviceaccount";

/// `WarnOnlyBoundTokenExpirationSeconds`: the expiration kubelet asks for a Pod's projected
/// token; such a token bound to a Pod gets a year (`ExpirationExtensionSeconds`) and a
/// `warnafter` at the hour asked (`--service-account-extend-token-expiration`, on by
/// default).
pub(crate) const WARN_ONLY_EXPIRATION: i64 = 60 * 60 + 7;
const EXTENDED_EXPIRATION: i64 = 24 * 365 * 60 * 60;

/// go-jose's `DefaultLeeway`: how far off the clocks may be when a token's times are checked.
const LEEWAY: i64 = 60;

/// The DER prefix of a P-256 public key's `SubjectPublicKeyInfo`; the key itself (the
/// uncompressed point) follows.
const P256_SPKI_PREFIX: [u8; 26] = [
    0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a,
    0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
];

/// The server's service account signing key.
pub(crate) struct Keys {
    pair: EcdsaKeyPair,
    rng: SystemRandom,
    /// `keyIDFromPublicKey`: the unpadded base64url SHA-256 of the public key's DER.
    kid: String,
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keys").field("kid", &self.kid).finish()
    }
}

/// What a token is bound to, besides its service account (`boundObjectRef`), with the
/// node of a bound Pod (`ServiceAccountTokenPodNodeInfo`).
#[derive(Clone, Debug, Default)]
pub(crate) struct Bound {
    /// `pod`, `secret` or `node`, with the object's name and uid.
    pub(crate) object: Option<(&'static str, String, String)>,
    /// A bound Pod's node: its name, and its uid when the Node exists.
    pub(crate) node: Option<(String, Option<String>)>,
}

/// A token's claims, once its signature and times are checked.
#[derive(Clone, Debug)]
pub(crate) struct Claims {
    pub(crate) namespace: String,
    pub(crate) name: String,
    pub(crate) uid: String,
    pub(crate) audiences: Vec<String>,
    pub(crate) jti: Option<String>,
    /// `pod`, `secret` or `node` → (name, uid), as the token names them.
    pub(crate) bound: Vec<(String, String, String)>,
    /// A legacy token's Secret (`kubernetes.io/serviceaccount/secret.name`), which the
    /// authenticator checks the token against.
    pub(crate) secret: Option<String>,
}

/// Why a token was not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Not one of this server's tokens (another issuer, not a JWT): no authenticator
    /// recognises it, and the request authenticator says `invalid bearer token`.
    NotOurs,
    /// One of ours that fails a check, with the authenticator's message.
    Invalid(String),
}

impl Keys {
    /// A new key from the system's random source.
    pub(crate) fn generate() -> Result<Keys, String> {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
            .map_err(|_| "cannot make a P-256 key".to_owned())?;
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng)
            .map_err(|_| "cannot read the P-256 key just made".to_owned())?;
        let mut der = P256_SPKI_PREFIX.to_vec();
        der.extend_from_slice(pair.public_key().as_ref());
        let kid = URL_SAFE_NO_PAD.encode(ring::digest::digest(&ring::digest::SHA256, &der));
        Ok(Keys { pair, rng, kid })
    }

    /// The token `Claims` and `GenerateToken` make for the service account `sa` (its
    /// namespace, name and uid), valid from `now` (Unix seconds) for `expiration` seconds,
    /// for `audiences`.
    pub(crate) fn issue(
        &self,
        sa: (&str, &str, &str),
        bound: &Bound,
        now: i64,
        expiration: i64,
        audiences: &[String],
    ) -> Result<String, String> {
        let (namespace, name, uid) = sa;
        let mut kubernetes = json!({
            "namespace": namespace,
            "serviceaccount": {"name": name, "uid": uid},
        });
        let mut exp = expiration;
        if let Some((kind, object_name, object_uid)) = &bound.object {
            kubernetes[*kind] = json!({"name": object_name, "uid": object_uid});
            if *kind == "pod" {
                if let Some((node, node_uid)) = &bound.node {
                    kubernetes["node"] = match node_uid {
                        Some(node_uid) => json!({"name": node, "uid": node_uid}),
                        None => json!({"name": node}),
                    };
                }
                if expiration == WARN_ONLY_EXPIRATION && audiences.iter().all(|a| a == ISSUER) {
                    kubernetes["warnafter"] = Value::from(now + expiration);
                    exp = EXTENDED_EXPIRATION;
                }
            }
        }
        let claims = json!({
            "aud": audiences,
            "exp": now + exp,
            "iat": now,
            "iss": ISSUER,
            "jti": self.uuid()?,
            "kubernetes.io": kubernetes,
            "nbf": now,
            "sub": format!("system:serviceaccount:{namespace}:{name}"),
        });
        self.sign(&claims)
    }

    /// The token the token controller puts in the Secret `secret` of the service account
    /// `sa` (namespace, name, uid): `LegacyClaims`, with no expiry and no audience.
    pub(crate) fn issue_legacy(
        &self,
        sa: (&str, &str, &str),
        secret: &str,
    ) -> Result<String, String> {
        let (namespace, name, uid) = sa;
        let claims = json!({
            "iss": LEGACY_ISSUER,
            "kubernetes.io/serviceaccount/namespace": namespace,
            "kubernetes.io/serviceaccount/secret.name": secret,
            "kubernetes.io/serviceaccount/service-account.name": name,
            "kubernetes.io/serviceaccount/service-account.uid": uid,
            "sub": format!("system:serviceaccount:{namespace}:{name}"),
        });
        self.sign(&claims)
    }

    /// The JWT of `claims`, signed, as go-jose writes it.
    fn sign(&self, claims: &Value) -> Result<String, String> {
        let header = json!({"alg": "ES256", "kid": self.kid});
        let signing_input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(sorted(&header).to_string()),
            URL_SAFE_NO_PAD.encode(sorted(claims).to_string())
        );
        let signature = self
            .pair
            .sign(&self.rng, signing_input.as_bytes())
            .map_err(|_| "failed to generate token: cannot sign".to_owned())?;
        Ok(format!(
            "{signing_input}.{}",
            URL_SAFE_NO_PAD.encode(signature.as_ref())
        ))
    }

    /// Checks `token` as the service account authenticator does, up to (not including) the
    /// lookup of the objects it names: issuer, signature, times, and audiences against
    /// `wanted` (the review's, or the API server's).
    pub(crate) fn check(
        &self,
        token: &str,
        now: i64,
        wanted: &[String],
    ) -> Result<Claims, Refusal> {
        let mut parts = token.split('.');
        let (Some(header), Some(payload), Some(signature), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(Refusal::NotOurs);
        };
        let decode = |part: &str| -> Option<Value> {
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).ok()?).ok()
        };
        // `hasCorrectIssuer`: the issuer is read before the signature is checked.
        let Some(claims) = decode(payload) else {
            return Err(Refusal::NotOurs);
        };
        let legacy = match claims.get("iss").and_then(Value::as_str) {
            Some(ISSUER) => false,
            Some(LEGACY_ISSUER) => true,
            _ => return Err(Refusal::NotOurs),
        };
        let crypto =
            || Refusal::Invalid("go-jose/go-jose: error in cryptographic primitive".into());
        if decode(header)
            .as_ref()
            .and_then(|h| h.get("alg"))
            .and_then(Value::as_str)
            != Some("ES256")
        {
            return Err(crypto());
        }
        let signature = URL_SAFE_NO_PAD.decode(signature).map_err(|_| crypto())?;
        let key = signature::UnparsedPublicKey::new(
            &signature::ECDSA_P256_SHA256_FIXED,
            self.pair.public_key().as_ref(),
        );
        let signed = &token[..header.len() + 1 + payload.len()];
        key.verify(signed.as_bytes(), &signature)
            .map_err(|_| crypto())?;
        let time = |key: &str| claims.get(key).and_then(Value::as_i64);
        // `jwt.Claims.Validate` with go-jose's leeway, in its order.
        if time("exp").is_some_and(|exp| now - LEEWAY > exp) {
            return Err(Refusal::Invalid("service account token has expired".into()));
        }
        if time("nbf").is_some_and(|nbf| now + LEEWAY < nbf) {
            return Err(Refusal::Invalid(
                "service account token is not valid yet".into(),
            ));
        }
        if time("iat").is_some_and(|iat| now + LEEWAY < iat) {
            return Err(Refusal::Invalid(
                "service account token is issued in the future".into(),
            ));
        }
        let audiences: Vec<String> = match claims.get("aud") {
            Some(Value::String(one)) => vec![one.clone()],
            Some(Value::Array(many)) => many
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            _ => Vec::new(),
        };
        // A token without audiences is a legacy one, for the API server's audiences.
        let token_audiences = if audiences.is_empty() {
            vec![ISSUER.to_owned()]
        } else {
            audiences
        };
        let both: Vec<String> = token_audiences
            .iter()
            .filter(|a| wanted.contains(a))
            .cloned()
            .collect();
        if both.is_empty() {
            return Err(Refusal::Invalid(format!(
                "token audiences {} is invalid for the target audiences {}",
                quote_list(&token_audiences),
                quote_list(wanted)
            )));
        }
        if legacy {
            return legacy_claims(&claims, both);
        }
        let kubernetes = claims.get("kubernetes.io");
        let text = |pointer: &str| {
            kubernetes
                .and_then(|k| k.pointer(pointer))
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        };
        let bound = ["pod", "secret", "node"]
            .into_iter()
            .filter(|kind| kubernetes.and_then(|k| k.get(*kind)).is_some())
            .map(|kind| {
                (
                    kind.to_owned(),
                    text(&format!("/{kind}/name")),
                    text(&format!("/{kind}/uid")),
                )
            })
            .collect();
        Ok(Claims {
            namespace: text("/namespace"),
            name: text("/serviceaccount/name"),
            uid: text("/serviceaccount/uid"),
            audiences: both,
            jti: claims.get("jti").and_then(Value::as_str).map(str::to_owned),
            bound,
            secret: None,
        })
    }

    /// `/.well-known/openid-configuration`, as `openidmetadata.go` writes it for this key.
    pub(crate) fn openid_configuration(&self) -> Value {
        json!({
            "issuer": ISSUER,
            "jwks_uri": format!("{ISSUER}/openid/v1/jwks"),
            "response_types_supported": ["id_token"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["ES256"],
        })
    }

    /// `/openid/v1/jwks`: the public key as a JSON Web Key Set, fields in go-jose's order.
    pub(crate) fn jwks(&self) -> Value {
        let point = self.pair.public_key().as_ref();
        let (x, y) = point[1..].split_at(32);
        json!({"keys": [{
            "use": "sig",
            "kty": "EC",
            "kid": self.kid,
            "crv": "P-256",
            "alg": "ES256",
            "x": URL_SAFE_NO_PAD.encode(x),
            "y": URL_SAFE_NO_PAD.encode(y),
        }]})
    }

    /// A random (version 4) UUID, as `uuid.NewString` writes it: a token's `jti`.
    fn uuid(&self) -> Result<String, String> {
        let mut b = [0u8; 16];
        self.rng
            .fill(&mut b)
            .map_err(|_| "failed to generate token: no random bytes".to_owned())?;
        b[6] = (b[6] & 0x0f) | 0x40;
        b[8] = (b[8] & 0x3f) | 0x80;
        let hex: String = b.iter().map(|byte| format!("{byte:02x}")).collect();
        Ok(format!(
            "{}-{}-{}-{}-{}",
            &hex[..8],
            &hex[8..12],
            &hex[12..16],
            &hex[16..20],
            &hex[20..]
        ))
    }
}

/// A legacy token's claims (`legacyValidator.Validate`, up to the lookups): each claim
/// there, and `sub` naming the same service account.
fn legacy_claims(claims: &Value, audiences: Vec<String>) -> Result<Claims, Refusal> {
    let claim = |key: &str| {
        claims
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let subject = claim("sub");
    let namespace = claim("kubernetes.io/serviceaccount/namespace");
    let secret = claim("kubernetes.io/serviceaccount/secret.name");
    let name = claim("kubernetes.io/serviceaccount/service-account.name");
    let uid = claim("kubernetes.io/serviceaccount/service-account.uid");
    let missing = |what: &str| Err(Refusal::Invalid(format!("{what} claim is missing")));
    if subject.is_empty() {
        return missing("sub");
    }
    if namespace.is_empty() {
        return missing("namespace");
    }
    if secret.is_empty() {
        return missing("secretName");
    }
    if name.is_empty() {
        return missing("serviceAccountName");
    }
    if uid.is_empty() {
        return missing("serviceAccountUID");
    }
    if subject != format!("system:serviceaccount:{namespace}:{name}") {
        return Err(Refusal::Invalid("sub claim is invalid".into()));
    }
    Ok(Claims {
        namespace,
        name,
        uid,
        audiences,
        jti: None,
        bound: Vec::new(),
        secret: Some(secret),
    })
}

/// `value` with every object's keys sorted, as Go writes a map.
pub(crate) fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let mut out = Map::new();
            for key in keys {
                out.insert(key.clone(), sorted(&map[key]));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys() -> Keys {
        Keys::generate().expect("a key")
    }

    #[test]
    fn a_token_checks_with_its_own_key_only() {
        let (a, b) = (keys(), keys());
        let aud = vec!["api".to_owned()];
        let token = a
            .issue(("ns", "sa", "u1"), &Bound::default(), 1000, 3600, &aud)
            .expect("a token");
        let claims = a.check(&token, 1010, &aud).expect("accepted");
        assert_eq!(
            (
                claims.namespace.as_str(),
                claims.name.as_str(),
                claims.uid.as_str()
            ),
            ("ns", "sa", "u1")
        );
        assert_eq!(claims.audiences, aud);
        assert_eq!(
            b.check(&token, 1010, &aud).map(|_| ()),
            Err(Refusal::Invalid(
                "go-jose/go-jose: error in cryptographic primitive".into()
            ))
        );
        assert_eq!(
            a.check(&token, 1000 + 3600 + 61, &aud).map(|_| ()),
            Err(Refusal::Invalid("service account token has expired".into()))
        );
        assert_eq!(
            a.check(&token, 1010, &["other".to_owned()]).map(|_| ()),
            Err(Refusal::Invalid(
                "token audiences [\"api\"] is invalid for the target audiences [\"other\"]".into()
            ))
        );
        assert_eq!(
            a.check("abc", 1010, &aud).map(|_| ()),
            Err(Refusal::NotOurs)
        );
    }

    #[test]
    fn claims_are_written_sorted_as_go_jose_writes_them() {
        let k = keys();
        let bound = Bound {
            object: Some(("pod", "p".into(), "pu".into())),
            node: Some(("n".into(), None)),
        };
        let token = k
            .issue(("ns", "sa", "u"), &bound, 5, 600, &["x".to_owned()])
            .expect("a token");
        let payload = token.split('.').nth(1).expect("a payload");
        let text =
            String::from_utf8(URL_SAFE_NO_PAD.decode(payload).expect("base64")).expect("UTF-8");
        let jti_at = text.find("\"jti\"").expect("a jti");
        let expected_start = "{\"aud\":[\"x\"],\"exp\":605,\"iat\":5,\"iss\":\"https://kubernetes.default.svc.cluster.local\",";
        assert!(text.starts_with(expected_start), "{text}");
        assert!(
            text[jti_at..].contains(",\"kubernetes.io\":{\"namespace\":\"ns\",\"node\":{\"name\":\"n\"},\"pod\":{\"name\":\"p\",\"uid\":\"pu\"},\"serviceaccount\":{\"name\":\"sa\",\"uid\":\"u\"}},\"nbf\":5,\"sub\":\"system:serviceaccount:ns:sa\"}"),
            "{text}"
        );
    }
}
