//! The semantics: the API server's rules for a written object, each decided here once and
//! called by the verbs. The admission plugins that change a created Pod (`admission`). Decoding, `fieldValidation` and validation (`validation`,
//! `directive`, `object_names`; a CRD's schema and CEL rules are evaluated here, through the
//! runtime), the built-in kinds' Go defaulters (`builtin_defaults`, from `data/`) and the
//! hand-written Go validation their schemas cannot say (`kinds`, a module per family of
//! kinds), patches
//! (`patch`), field management and server-side apply (`apply`, where a conflict becomes a
//! 409), each kind's registry strategy on create and update (`strategy`, from `data/`) and a
//! Service's allocations (`allocation`), what a delete means (`deletion`), what the
//! namespace registry and admission do (`namespaces`) and the CRD registry (`crds`, with
//! whether a CRD's schema is structural: `structural`), service
//! account tokens and their one signing key (`tokens`), a CertificateSigningRequest's
//! strategies (`csr`); who may do what: the request's user and RBAC's evaluation (`rbac`).

pub(crate) mod admission;
pub(crate) mod allocation;
pub(crate) mod apply;
pub(crate) mod builtin_defaults;
pub(crate) mod crds;
pub(crate) mod csr;
pub(crate) mod deletion;
pub(crate) mod directive;
pub(crate) mod kinds;
pub(crate) mod namespaces;
pub(crate) mod object_names;
pub(crate) mod patch;
pub(crate) mod rbac;
pub(crate) mod strategy;
pub(crate) mod structural;
pub(crate) mod tokens;
pub(crate) mod validation;
