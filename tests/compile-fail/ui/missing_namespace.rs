// A Lease is namespaced, so its constructor takes the namespace after the name.
use kubeforge_api::api::coordination::v1::Lease;

fn main() {
    let _lease = Lease::builder("scheduler").build();
}
