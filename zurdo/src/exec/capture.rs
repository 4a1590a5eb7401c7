//! One output stream kept bounded while it is read: its first bytes and its
//! last bytes, with what lies between counted but not kept, so a command
//! that prints without end (`yes`) costs a fixed amount of memory.

/// How much of each output stream a run keeps in memory: the first `head`
/// bytes and the last `tail`. What lies between is counted, not kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Keep {
    /// Bytes kept from the start of the stream.
    pub head: usize,
    /// Bytes kept from the end of the stream.
    pub tail: usize,
}

impl Keep {
    /// What a `[shell:]` criterion keeps of each of stdout and stderr:
    /// 1 MiB from the start and 1 MiB from the end. The evidence keeps far
    /// less of it ([`crate::verify::Captured`]), and the zero-test scan reads
    /// every line as it arrives, so nothing it relies on is lost when the
    /// middle is cut.
    pub const CRITERION: Keep = Keep {
        head: 1024 * 1024,
        tail: 1024 * 1024,
    };

    /// What [`super::run`] and [`super::run_observed`] keep (an agent's own
    /// event stream): 64 MiB from each end, so a stream of any ordinary
    /// size is kept whole, and one without end still costs at most 128 MiB.
    pub const GENEROUS: Keep = Keep {
        head: 64 * 1024 * 1024,
        tail: 64 * 1024 * 1024,
    };
}

/// The last bytes of a stream, in a buffer that grows to its capacity and
/// then wraps.
#[derive(Debug)]
struct Tail {
    cap: usize,
    buf: Vec<u8>,
    /// Where the next byte goes once `buf` is full.
    pos: usize,
    /// Every byte pushed.
    seen: u64,
}

impl Tail {
    fn new(cap: usize) -> Tail {
        Tail {
            cap,
            buf: Vec::new(),
            pos: 0,
            seen: 0,
        }
    }

    fn push(&mut self, mut bytes: &[u8]) {
        self.seen += bytes.len() as u64;
        if self.cap == 0 || bytes.is_empty() {
            return;
        }
        if bytes.len() >= self.cap {
            self.buf.clear();
            self.buf.extend_from_slice(&bytes[bytes.len() - self.cap..]);
            self.pos = 0;
            return;
        }
        if self.buf.len() < self.cap {
            let n = (self.cap - self.buf.len()).min(bytes.len());
            self.buf.extend_from_slice(&bytes[..n]);
            bytes = &bytes[n..];
        }
        while !bytes.is_empty() {
            let n = (self.cap - self.pos).min(bytes.len());
            self.buf[self.pos..self.pos + n].copy_from_slice(&bytes[..n]);
            self.pos = (self.pos + n) % self.cap;
            bytes = &bytes[n..];
        }
    }

    /// The kept bytes, oldest first.
    fn into_bytes(mut self) -> Vec<u8> {
        if self.buf.len() == self.cap {
            self.buf.rotate_left(self.pos);
        }
        self.buf
    }
}

/// One stream being captured.
#[derive(Debug)]
pub(super) struct Capture {
    head_cap: usize,
    head: Vec<u8>,
    tail: Tail,
}

impl Capture {
    pub(super) fn new(keep: Keep) -> Capture {
        Capture {
            head_cap: keep.head,
            head: Vec::new(),
            tail: Tail::new(keep.tail),
        }
    }

    pub(super) fn push(&mut self, bytes: &[u8]) {
        let n = (self.head_cap - self.head.len()).min(bytes.len());
        self.head.extend_from_slice(&bytes[..n]);
        self.tail.push(&bytes[n..]);
    }

    /// Every byte written.
    pub(super) fn total(&self) -> u64 {
        self.head.len() as u64 + self.tail.seen
    }

    /// Every byte when the stream fit, else its head, a line
    /// `… [N bytes cut] …`, and its tail.
    pub(super) fn into_bytes(self) -> Vec<u8> {
        let cut = self.tail.seen.saturating_sub(self.tail.cap as u64);
        let mut bytes = self.head;
        if cut > 0 {
            bytes.extend_from_slice(format!("\n… [{cut} bytes cut] …\n").as_bytes());
        }
        bytes.extend_from_slice(&self.tail.into_bytes());
        bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn captured(keep: Keep, chunks: &[&[u8]]) -> (Vec<u8>, u64) {
        let mut c = Capture::new(keep);
        for chunk in chunks {
            c.push(chunk);
        }
        let total = c.total();
        (c.into_bytes(), total)
    }

    #[test]
    fn a_stream_that_fits_is_kept_whole() {
        let keep = Keep { head: 4, tail: 4 };
        for chunks in [
            &[&b"abcdefgh"[..]][..],
            &[b"ab", b"cdefg", b"h"],
            &[b"a", b""],
        ] {
            let whole: Vec<u8> = chunks.concat();
            let (bytes, total) = captured(keep, chunks);
            assert_eq!(bytes, whole);
            assert_eq!(total, whole.len() as u64);
        }
    }

    #[test]
    fn a_longer_stream_keeps_its_head_and_tail_and_counts_the_rest() {
        let keep = Keep { head: 3, tail: 4 };
        let expected = "abc\n… [5 bytes cut] …\ni123".as_bytes();
        for chunks in [
            &[&b"abcdefghi123"[..]][..],
            &[b"ab", b"cdefghi1", b"23"],
            &[
                b"a", b"b", b"c", b"d", b"e", b"f", b"g", b"h", b"i", b"1", b"2", b"3",
            ],
            &[b"abcdefg", b"hi123"],
        ] {
            let (bytes, total) = captured(keep, chunks);
            assert_eq!(
                String::from_utf8_lossy(&bytes),
                String::from_utf8_lossy(expected)
            );
            assert_eq!(total, 12);
        }
        let (bytes, total) = captured(Keep { head: 0, tail: 0 }, &[b"abc"]);
        assert_eq!(String::from_utf8_lossy(&bytes), "\n… [3 bytes cut] …\n");
        assert_eq!(total, 3);
    }
}
