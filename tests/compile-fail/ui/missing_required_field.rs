// `containerPort` is required, so `ContainerPort::builder` takes it.
use kubeforge_api::api::core::v1::ContainerPort;

fn main() {
    let _port = ContainerPort::builder().name("http").build();
}
