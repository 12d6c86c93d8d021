//! The channels of a remote command over WebSocket (`k8s.io/apimachinery/pkg/util/
//! httpstream/wsstream`, `pkg/util/remotecommand/constants.go`): each binary message starts
//! with the byte of its channel (stdin 0, stdout 1, stderr 2, the error channel 3, terminal
//! resizes 4); `v5.channel.k8s.io` adds 255, by which a client closes one channel (its
//! stdin). The error channel carries the command's end as a `Status`, as the kubelet writes
//! it (`pkg/kubelet/cri/streaming/remotecommand/exec.go`, `ServeExec`).

use serde_json::Value;

pub(crate) const STDIN: u8 = 0;
pub(crate) const STDOUT: u8 = 1;
pub(crate) const STDERR: u8 = 2;
pub(crate) const ERROR: u8 = 3;
pub(crate) const RESIZE: u8 = 4;
/// `v5.channel.k8s.io`'s `StreamClose`: the message's next byte names the channel closed.
pub(crate) const CLOSE: u8 = 255;

/// The remote command subprotocols served, best first: v5 (with the close signal) and v4
/// (the exit code's `Status` on the error channel).
pub(crate) const PROTOCOLS: [&str; 2] = ["v5.channel.k8s.io", "v4.channel.k8s.io"];

/// The subprotocol chosen for a `Sec-WebSocket-Protocol` header (its comma-separated
/// offers, in the client's order, as `wsstream`'s `handshake` takes the first it supports);
/// `None` when it offers none of [`PROTOCOLS`].
pub(crate) fn negotiate(offered: &str) -> Option<&'static str> {
    offered
        .split(',')
        .map(str::trim)
        .find_map(|offer| PROTOCOLS.iter().find(|p| **p == offer).copied())
}

/// Whether the subprotocol has the close signal ([`CLOSE`]).
pub(crate) fn closes_channels(protocol: &str) -> bool {
    protocol == PROTOCOLS[0]
}

/// A message on `channel`.
pub(crate) fn frame(channel: u8, data: &[u8]) -> Vec<u8> {
    let mut message = Vec::with_capacity(data.len() + 1);
    message.push(channel);
    message.extend_from_slice(data);
    message
}

/// The `Status` the error channel carries when the command ended with `code` (argv in the
/// message as Go's `%v` prints a `[]string`): `Success` for 0, else `NonZeroExitCode`
/// with an `ExitCode` cause, as `json.Marshal` writes a `metav1.Status`: no kind, its fields
/// in the struct's order (written here, so that it does not depend on how `serde_json`'s
/// maps are built).
pub(crate) fn exit_status(argv: &[String], code: i32) -> String {
    if code == 0 {
        return r#"{"metadata":{},"status":"Success"}"#.to_owned();
    }
    let message = format!(
        "command terminated with non-zero exit code: error executing command [{}], exit code {code}",
        argv.join(" ")
    );
    format!(
        r#"{{"metadata":{{}},"status":"Failure","message":{},"reason":"NonZeroExitCode","details":{{"causes":[{{"reason":"ExitCode","message":"{code}"}}]}}}}"#,
        Value::String(message)
    )
}

/// A terminal size from the resize channel (`remotecommand.TerminalSize`: `{"Width",
/// "Height"}`); `None` for anything else.
pub(crate) fn terminal_size(data: &[u8]) -> Option<(u16, u16)> {
    let value: Value = serde_json::from_slice(data).ok()?;
    let side = |key: &str| {
        value
            .get(key)
            .and_then(Value::as_u64)
            .and_then(|n| u16::try_from(n).ok())
    };
    Some((side("Width")?, side("Height")?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_offer_served_wins() {
        assert_eq!(
            negotiate("v5.channel.k8s.io, v4.channel.k8s.io"),
            Some("v5.channel.k8s.io")
        );
        assert_eq!(
            negotiate("channel.k8s.io,v4.channel.k8s.io"),
            Some("v4.channel.k8s.io")
        );
        assert_eq!(negotiate("base64.channel.k8s.io"), None);
    }

    #[test]
    fn an_exit_code_is_a_cause() {
        let status = exit_status(&["sh".into(), "-c".into(), "exit 3".into()], 3);
        assert_eq!(
            status,
            r#"{"metadata":{},"status":"Failure","message":"command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"3"}]}}"#
        );
        let parsed: Value = serde_json::from_str(&status).unwrap();
        assert_eq!(parsed["details"]["causes"][0]["message"], "3");
        assert_eq!(
            terminal_size(br#"{"Width":80,"Height":24}"#),
            Some((80, 24))
        );
    }
}
