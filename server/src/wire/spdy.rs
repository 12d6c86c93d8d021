//! SPDY/3.1 framing, the server's half, as kubectl's port-forward speaks it
//! (`github.com/moby/spdystream/spdy`, which `k8s.io/apimachinery/pkg/util/httpstream/spdy`
//! wraps): over an HTTP/1.1 upgrade to `SPDY/3.1`, or tunnelled in the binary messages of a
//! WebSocket whose subprotocol is `SPDY/3.1+portforward.k8s.io` (client-go's
//! `tunneling_dialer.go`, on by default since Kubernetes 1.31).
//!
//! A frame is a control frame (its first bit set: version 3, a type, flags and a 24-bit
//! length) or a data frame (a 31-bit stream id, flags and a 24-bit length). Header blocks
//! (`SYN_STREAM`, `SYN_REPLY`, `HEADERS`) are a count of name/value pairs, each behind a
//! 32-bit length, compressed with zlib and SPDY/3's dictionary: one compression context per
//! direction for the whole connection, each block ending with a sync flush.
//!
//! Written here rather than taken from a crate: the one SPDY/3.1 crate on crates.io
//! (`spdy-mux`, 0.1) is a young client-side multiplexer; the server needs a frame reader and
//! the few frames it answers with (`SYN_REPLY`, `DATA`, `PING`, `RST_STREAM`, `GOAWAY`), on
//! flate2's zlib-rs backend for the dictionary.

use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};

/// The control frames' types (`spdy/types.go`).
const SYN_STREAM: u16 = 1;
const SYN_REPLY: u16 = 2;
const RST_STREAM: u16 = 3;
const SETTINGS: u16 = 4;
const PING: u16 = 6;
const GOAWAY: u16 = 7;
const HEADERS: u16 = 8;
const WINDOW_UPDATE: u16 = 9;

/// The flag that ends a stream's half (`DataFlagFin`, `ControlFlagFin`).
pub(crate) const FIN: u8 = 0x01;

/// `RST_STREAM`'s `ProtocolError` and `Cancel` statuses.
pub(crate) const PROTOCOL_ERROR: u32 = 1;
pub(crate) const CANCEL: u32 = 5;

/// The largest header block accepted, decompressed (a client's few headers fit many times).
const MAX_HEADERS: usize = 256 * 1024;

/// SPDY/3's zlib dictionary for header blocks (the draft's section 2.6.10.1, 1423 bytes).
const DICTIONARY: &[u8] =
    b"\x00\x00\x00\x07options\x00\x00\x00\x04head\x00\x00\x00\x04post\x00\x00\x00\x03put\x00\
    \x00\x00\x06delete\x00\x00\x00\x05trace\x00\x00\x00\x06accept\x00\x00\x00\x0eaccept-cha\
    rset\x00\x00\x00\x0faccept-encoding\x00\x00\x00\x0faccept-language\x00\x00\x00\x0daccep\
    t-ranges\x00\x00\x00\x03age\x00\x00\x00\x05allow\x00\x00\x00\x0dauthorization\x00\x00\x00\
    \x0dcache-control\x00\x00\x00\x0aconnection\x00\x00\x00\x0ccontent-base\x00\x00\x00\x10\
    content-encoding\x00\x00\x00\x10content-language\x00\x00\x00\x0econtent-length\x00\x00\x00\
    \x10content-location\x00\x00\x00\x0bcontent-md5\x00\x00\x00\x0dcontent-range\x00\x00\x00\
    \x0ccontent-type\x00\x00\x00\x04date\x00\x00\x00\x04etag\x00\x00\x00\x06expect\x00\x00\x00\
    \x07expires\x00\x00\x00\x04from\x00\x00\x00\x04host\x00\x00\x00\x08if-match\x00\x00\x00\
    \x11if-modified-since\x00\x00\x00\x0dif-none-match\x00\x00\x00\x08if-range\x00\x00\x00\x13\
    if-unmodified-since\x00\x00\x00\x0dlast-modified\x00\x00\x00\x08location\x00\x00\x00\x0c\
    max-forwards\x00\x00\x00\x06pragma\x00\x00\x00\x12proxy-authenticate\x00\x00\x00\x13pro\
    xy-authorization\x00\x00\x00\x05range\x00\x00\x00\x07referer\x00\x00\x00\x0bretry-after\
    \x00\x00\x00\x06server\x00\x00\x00\x02te\x00\x00\x00\x07trailer\x00\x00\x00\x11transfer\
    -encoding\x00\x00\x00\x07upgrade\x00\x00\x00\x0auser-agent\x00\x00\x00\x04vary\x00\x00\x00\
    \x03via\x00\x00\x00\x07warning\x00\x00\x00\x10www-authenticate\x00\x00\x00\x06method\x00\
    \x00\x00\x03get\x00\x00\x00\x06status\x00\x00\x00\x06200 OK\x00\x00\x00\x07version\x00\x00\
    \x00\x08HTTP/1.1\x00\x00\x00\x03url\x00\x00\x00\x06public\x00\x00\x00\x0aset-cookie\x00\
    \x00\x00\x0akeep-alive\x00\x00\x00\x06origin1001012012022052063003023033043053063074024\
    05406407408409410411412413414415416417502504505203 Non-Authoritative Information204 No \
    Content301 Moved Permanently400 Bad Request401 Unauthorized403 Forbidden404 Not Found50\
    0 Internal Server Error501 Not Implemented503 Service UnavailableJan Feb Mar Apr May Ju\
    n Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMTchunked,text/\
    html,image/png,image/jpg,image/gif,application/xml,application/xhtml+xml,text/plain,tex\
    t/javascript,publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-\
    ,*,enq=0.";

/// A frame the server reads.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Frame {
    /// A stream the client opens: its id, its headers (names lowercase, in order), and
    /// whether the client sends nothing on it (`FIN`).
    SynStream {
        id: u32,
        headers: Vec<(String, String)>,
        fin: bool,
    },
    /// Bytes on a stream, and whether they are the client's last on it.
    Data { id: u32, data: Vec<u8>, fin: bool },
    /// The client abandons a stream.
    RstStream { id: u32, status: u32 },
    /// A ping, answered with the same id.
    Ping(u32),
    /// The client ends the connection.
    GoAway,
    /// What the server takes note of and ignores: `SETTINGS`, `WINDOW_UPDATE` (spdystream
    /// does no flow control), `HEADERS`, `SYN_REPLY`, and unknown control frames.
    Ignored,
}

/// What is wrong with the bytes read.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Error(pub(crate) String);

/// One side's framing state: the compression contexts of the two directions.
pub(crate) struct Framer {
    inflate: Decompress,
    deflate: Compress,
}

impl std::fmt::Debug for Framer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Framer")
    }
}

impl Default for Framer {
    fn default() -> Framer {
        let mut deflate = Compress::new(Compression::best(), true);
        // The dictionary is set before any input: it cannot fail.
        let _ = deflate.set_dictionary(DICTIONARY);
        Framer {
            inflate: Decompress::new(true),
            deflate,
        }
    }
}

impl Framer {
    /// The next whole frame at the start of `buffer`, removed from it; `None` while the
    /// buffer holds only part of one.
    pub(crate) fn read(&mut self, buffer: &mut Vec<u8>) -> Result<Option<Frame>, Error> {
        let Some(head) = buffer.get(..8) else {
            return Ok(None);
        };
        let length = usize::from(head[5]) << 16 | usize::from(head[6]) << 8 | usize::from(head[7]);
        if buffer.len() < 8 + length {
            return Ok(None);
        }
        let flags = head[4];
        let first = u32::from_be_bytes([head[0], head[1], head[2], head[3]]);
        let body: Vec<u8> = buffer.drain(..8 + length).skip(8).collect();
        if first & 0x8000_0000 == 0 {
            let id = first & 0x7fff_ffff;
            if id == 0 {
                return Err(Error("a data frame on stream 0".into()));
            }
            return Ok(Some(Frame::Data {
                id,
                data: body,
                fin: flags & FIN != 0,
            }));
        }
        let version = (first >> 16) & 0x7fff;
        if version != 3 {
            return Err(Error(format!("unsupported SPDY version {version}")));
        }
        let word = |at: usize| {
            body.get(at..at + 4)
                .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
                .ok_or_else(|| {
                    Error(format!(
                        "a control frame of type {} too short",
                        first & 0xffff
                    ))
                })
        };
        let kind = u16::try_from(first & 0xffff).unwrap_or(0);
        Ok(Some(match kind {
            SYN_STREAM => {
                let id = word(0)? & 0x7fff_ffff;
                if id == 0 || body.len() < 10 {
                    return Err(Error("a SYN_STREAM without a stream id".into()));
                }
                let headers = self.headers(&body[10..])?;
                Frame::SynStream {
                    id,
                    headers,
                    fin: flags & FIN != 0,
                }
            }
            SYN_REPLY | HEADERS => {
                // Their header blocks still advance the compression context.
                let _ = word(0)?;
                self.headers(&body[4..])?;
                Frame::Ignored
            }
            RST_STREAM => Frame::RstStream {
                id: word(0)? & 0x7fff_ffff,
                status: word(4)?,
            },
            PING => Frame::Ping(word(0)?),
            GOAWAY => Frame::GoAway,
            SETTINGS | WINDOW_UPDATE => Frame::Ignored,
            _ => Frame::Ignored,
        }))
    }

    /// A header block: decompressed with the connection's context, then its pairs (a value
    /// with several entries joined by NUL, as spdystream writes them).
    fn headers(&mut self, compressed: &[u8]) -> Result<Vec<(String, String)>, Error> {
        let mut plain = Vec::with_capacity(compressed.len() * 4 + 64);
        let mut input = compressed;
        while !input.is_empty() {
            if plain.len() == plain.capacity() {
                if plain.len() >= MAX_HEADERS {
                    return Err(Error("a header block too large".into()));
                }
                plain.reserve(plain.len().max(256));
            }
            let before = self.inflate.total_in();
            let result = self
                .inflate
                .decompress_vec(input, &mut plain, FlushDecompress::Sync);
            let used = usize::try_from(self.inflate.total_in() - before).unwrap_or(input.len());
            input = &input[used.min(input.len())..];
            match result {
                Ok(Status::Ok | Status::BufError) => {}
                Ok(Status::StreamEnd) => break,
                Err(error) if error.needs_dictionary().is_some() => {
                    self.inflate
                        .set_dictionary(DICTIONARY)
                        .map_err(|e| Error(format!("the header dictionary: {e}")))?;
                }
                Err(error) => return Err(Error(format!("a header block: {error}"))),
            }
        }
        parse_pairs(&plain)
    }

    /// A `SYN_REPLY` on stream `id` with `headers`.
    pub(crate) fn syn_reply(&mut self, id: u32, headers: &[(&str, &str)]) -> Vec<u8> {
        let block = self.compress(headers);
        let mut frame = control(SYN_REPLY, 0, 4 + block.len());
        frame.extend_from_slice(&(id & 0x7fff_ffff).to_be_bytes());
        frame.extend_from_slice(&block);
        frame
    }

    fn compress(&mut self, headers: &[(&str, &str)]) -> Vec<u8> {
        let mut plain = Vec::new();
        let count = u32::try_from(headers.len()).unwrap_or(u32::MAX);
        plain.extend_from_slice(&count.to_be_bytes());
        for (name, value) in headers {
            for text in [name.to_ascii_lowercase().as_str(), value] {
                let length = u32::try_from(text.len()).unwrap_or(u32::MAX);
                plain.extend_from_slice(&length.to_be_bytes());
                plain.extend_from_slice(text.as_bytes());
            }
        }
        let mut out = Vec::with_capacity(plain.len() + 64);
        let mut input = plain.as_slice();
        loop {
            out.reserve(input.len() + 64);
            let before = self.deflate.total_in();
            let _ = self
                .deflate
                .compress_vec(input, &mut out, FlushCompress::Sync);
            let used = usize::try_from(self.deflate.total_in() - before).unwrap_or(input.len());
            input = &input[used.min(input.len())..];
            // Done once all is in and the flush's empty block is out (space left over).
            if input.is_empty() && out.len() < out.capacity() {
                return out;
            }
        }
    }
}

/// The pairs of a decompressed header block.
fn parse_pairs(plain: &[u8]) -> Result<Vec<(String, String)>, Error> {
    let mut at = 0usize;
    let word = |at: &mut usize| -> Result<usize, Error> {
        let bytes = plain
            .get(*at..*at + 4)
            .ok_or_else(|| Error("a header block cut short".into()))?;
        *at += 4;
        Ok(u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize)
    };
    let count = word(&mut at)?;
    let text = |at: &mut usize| -> Result<String, Error> {
        let length = word(at)?;
        let bytes = plain
            .get(*at..*at + length)
            .ok_or_else(|| Error("a header block cut short".into()))?;
        *at += length;
        Ok(String::from_utf8_lossy(bytes).into_owned())
    };
    let mut pairs = Vec::new();
    for _ in 0..count {
        let name = text(&mut at)?.to_ascii_lowercase();
        let value = text(&mut at)?;
        pairs.push((name, value));
    }
    Ok(pairs)
}

/// A control frame's first 8 bytes.
fn control(kind: u16, flags: u8, length: usize) -> Vec<u8> {
    let mut frame = Vec::with_capacity(8 + length);
    frame.extend_from_slice(&(0x8000u16 | 3).to_be_bytes());
    frame.extend_from_slice(&kind.to_be_bytes());
    let length = u32::try_from(length).unwrap_or(0) & 0x00ff_ffff;
    frame.extend_from_slice(&(u32::from(flags) << 24 | length).to_be_bytes());
    frame
}

/// The largest payload of one data frame written (the reader takes up to 2^24 - 1).
pub(crate) const MAX_DATA: usize = 32 * 1024;

/// A `DATA` frame on stream `id` (at most [`MAX_DATA`] bytes: the caller splits).
pub(crate) fn data(id: u32, bytes: &[u8], fin: bool) -> Vec<u8> {
    let mut frame = Vec::with_capacity(8 + bytes.len());
    frame.extend_from_slice(&(id & 0x7fff_ffff).to_be_bytes());
    let length = u32::try_from(bytes.len()).unwrap_or(0) & 0x00ff_ffff;
    let flags = if fin { FIN } else { 0 };
    frame.extend_from_slice(&(u32::from(flags) << 24 | length).to_be_bytes());
    frame.extend_from_slice(bytes);
    frame
}

/// A `PING` with `id` (the answer to the client's).
pub(crate) fn ping(id: u32) -> Vec<u8> {
    let mut frame = control(PING, 0, 4);
    frame.extend_from_slice(&id.to_be_bytes());
    frame
}

/// A `RST_STREAM` of stream `id` with `status`.
pub(crate) fn rst_stream(id: u32, status: u32) -> Vec<u8> {
    let mut frame = control(RST_STREAM, 0, 8);
    frame.extend_from_slice(&(id & 0x7fff_ffff).to_be_bytes());
    frame.extend_from_slice(&status.to_be_bytes());
    frame
}

/// A `GOAWAY` naming `last` the last stream accepted, with `status` (0: OK).
pub(crate) fn goaway(last: u32, status: u32) -> Vec<u8> {
    let mut frame = control(GOAWAY, 0, 8);
    frame.extend_from_slice(&(last & 0x7fff_ffff).to_be_bytes());
    frame.extend_from_slice(&status.to_be_bytes());
    frame
}

/// A `SYN_STREAM` as a client writes it (the tests' client side).
#[cfg(test)]
pub(crate) fn syn_stream(
    framer: &mut Framer,
    id: u32,
    headers: &[(&str, &str)],
    fin: bool,
) -> Vec<u8> {
    let block = framer.compress(headers);
    let mut frame = control(SYN_STREAM, if fin { FIN } else { 0 }, 10 + block.len());
    frame.extend_from_slice(&(id & 0x7fff_ffff).to_be_bytes());
    frame.extend_from_slice(&0u32.to_be_bytes());
    frame.extend_from_slice(&[0, 0]);
    frame.extend_from_slice(&block);
    frame
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dictionary_is_spdy3s() {
        // The draft's dictionary: 1423 bytes, Adler-32 0xe3c6a7c2 (the id a zlib stream
        // compressed with it names).
        assert_eq!(DICTIONARY.len(), 1423);
        let mut deflate = Compress::new(Compression::best(), true);
        assert_eq!(deflate.set_dictionary(DICTIONARY).unwrap(), 0xe3c6_a7c2);
    }

    #[test]
    fn header_blocks_share_one_context_per_direction() {
        let (mut client, mut server) = (Framer::default(), Framer::default());
        let mut wire = Vec::new();
        for (id, kind) in [(1, "error"), (3, "data")] {
            wire.extend(syn_stream(
                &mut client,
                id,
                &[("streamType", kind), ("port", "8080"), ("requestID", "0")],
                id == 1,
            ));
        }
        wire.extend(data(3, b"GET / HTTP/1.1\r\n", false));
        wire.extend(ping(1));
        // Byte by byte: a frame is read only once it is whole.
        let mut buffer = Vec::new();
        let mut frames = Vec::new();
        for byte in wire {
            buffer.push(byte);
            while let Some(frame) = server.read(&mut buffer).unwrap() {
                frames.push(frame);
            }
        }
        let headers = |kind: &str| {
            vec![
                ("streamtype".to_owned(), kind.to_owned()),
                ("port".to_owned(), "8080".to_owned()),
                ("requestid".to_owned(), "0".to_owned()),
            ]
        };
        assert_eq!(
            frames,
            vec![
                Frame::SynStream {
                    id: 1,
                    headers: headers("error"),
                    fin: true
                },
                Frame::SynStream {
                    id: 3,
                    headers: headers("data"),
                    fin: false
                },
                Frame::Data {
                    id: 3,
                    data: b"GET / HTTP/1.1\r\n".to_vec(),
                    fin: false
                },
                Frame::Ping(1),
            ]
        );
        // The server's replies read back with the other direction's context.
        let mut replies = server.syn_reply(1, &[]);
        replies.extend(server.syn_reply(3, &[("a", "b")]));
        let mut client_reader = Framer::default();
        assert_eq!(
            client_reader.read(&mut replies).unwrap(),
            Some(Frame::Ignored)
        );
        assert_eq!(
            client_reader.read(&mut replies).unwrap(),
            Some(Frame::Ignored)
        );
        assert!(replies.is_empty());
    }

    #[test]
    fn bad_frames_are_errors_not_panics() {
        let mut framer = Framer::default();
        let mut garbage = control(SYN_STREAM, 0, 12);
        garbage.extend_from_slice(&[0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xde, 0xad]);
        assert!(framer.read(&mut garbage).is_err());
        let mut short = control(PING, 0, 2);
        short.extend_from_slice(&[0, 1]);
        assert!(Framer::default().read(&mut short).is_err());
        let mut version2 = vec![0x80, 2, 0, 6, 0, 0, 0, 4, 0, 0, 0, 1];
        assert!(Framer::default().read(&mut version2).is_err());
    }
}
