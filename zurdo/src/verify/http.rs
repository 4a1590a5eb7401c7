//! `[http: METHOD URL -> STATUS]`: one request, the status compared.
//!
//! The request is made exactly once: no redirect is followed (a 301 is
//! reported as 301), no proxy is taken from the environment, nothing is
//! retried, and a non-2xx status is an answer to compare, not an error. One
//! overall timeout bounds the whole exchange, body included, and at most
//! `read_limit` bytes of the body are read.

use std::io::{self, Read};
use std::time::Duration;

use zurdo_base::text::escape_line;
use zurdo_lang::hint::HttpCheck;

use super::outcome::{Evidence, Reason, Verdict};

/// Body text kept in the evidence note.
const NOTE_BODY_BYTES: usize = 2 * 1024;

/// Performs the request of an `[http:]` hint.
pub(crate) fn check(check: &HttpCheck, timeout: Duration, read_limit: u64) -> (Verdict, Evidence) {
    let request = format!("{} {}", check.method, check.url);
    let mut response = match send(check, timeout) {
        Ok(response) => response,
        Err(error) => {
            let reason = failure_reason(&error, timeout);
            let note = format!("{request} -> {reason} ({error})");
            return (Verdict::Fail(reason), noted(note));
        }
    };
    let got = response.status().as_u16();
    let body = read_body(response.body_mut(), read_limit);
    let note = format!("{request} -> {got} ({})", describe_body(&body, read_limit));
    let verdict = if got == check.status {
        Verdict::Pass
    } else {
        Verdict::Fail(Reason::WrongStatus {
            expected: check.status,
            got,
        })
    };
    (verdict, noted(note))
}

fn noted(note: String) -> Evidence {
    Evidence {
        note: Some(note),
        ..Evidence::default()
    }
}

/// Sends the request with an agent built for this one check.
fn send(
    check: &HttpCheck,
    timeout: Duration,
) -> Result<ureq::http::Response<ureq::Body>, ureq::Error> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .max_redirects(0)
        .http_status_as_error(false)
        .proxy(None)
        .user_agent(concat!("zurdo/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let url = check.url.as_str();
    match check.method.as_str() {
        "GET" => agent.get(url).call(),
        "HEAD" => agent.head(url).call(),
        "DELETE" => agent.delete(url).call(),
        "OPTIONS" => agent.options(url).call(),
        "POST" => agent.post(url).send_empty(),
        "PUT" => agent.put(url).send_empty(),
        "PATCH" => agent.patch(url).send_empty(),
        other => Err(ureq::Error::BadUri(format!("unsupported method `{other}`"))),
    }
}

/// The typed reason for a request that got no response.
fn failure_reason(error: &ureq::Error, timeout: Duration) -> Reason {
    match error {
        ureq::Error::Timeout(_) => timed_out(timeout),
        ureq::Error::Io(e) => match e.kind() {
            io::ErrorKind::ConnectionRefused => Reason::ConnectionRefused,
            io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock => timed_out(timeout),
            _ => failed(error),
        },
        _ => failed(error),
    }
}

/// The timeout in whole seconds, rounded up so 300 ms does not read "0s".
fn timed_out(timeout: Duration) -> Reason {
    let millis = timeout.as_millis();
    let seconds = u64::try_from(millis.div_ceil(1000)).unwrap_or(u64::MAX);
    Reason::HttpTimeout { seconds }
}

fn failed(error: &ureq::Error) -> Reason {
    // The message may quote what the server sent.
    Reason::HttpFailed {
        error: escape_line(&error.to_string()).into_owned(),
    }
}

/// What was read of the body: at most `read_limit` bytes, and the error that
/// stopped the read early, if any.
struct BodyRead {
    bytes: Vec<u8>,
    error: Option<String>,
}

fn read_body(body: &mut ureq::Body, read_limit: u64) -> BodyRead {
    let mut bytes = Vec::new();
    // `as_reader` is unlimited by itself; `take` is the bound, so an endless
    // body costs at most `read_limit` bytes (and the overall timeout).
    let error = body
        .as_reader()
        .take(read_limit)
        .read_to_end(&mut bytes)
        .err()
        .map(|e| e.to_string());
    BodyRead { bytes, error }
}

/// `body 12 bytes: "ok"`; says so when the read limit or a read error cut
/// the body short.
fn describe_body(body: &BodyRead, read_limit: u64) -> String {
    let len = body.bytes.len();
    let mut text = match &body.error {
        Some(error) => format!("body read failed after {len} bytes: {error}"),
        None if read_limit > 0 && len as u64 >= read_limit => {
            format!("body {len} bytes, read limit reached")
        }
        None => format!("body {len} bytes"),
    };
    if len > 0 {
        let kept = &body.bytes[..len.min(NOTE_BODY_BYTES)];
        let shown = String::from_utf8_lossy(kept);
        let more = if len > NOTE_BODY_BYTES { "…" } else { "" };
        // Quoted, every control character escaped (one shared rule for
        // everything zurdo shows that a hint's subject wrote).
        text.push_str(&format!(": \"{}\"{more}", escape_line(&shown)));
    }
    text
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead, BufReader, Write};
    use std::net::{TcpListener, TcpStream};
    use std::sync::mpsc;
    use std::thread;
    use std::time::Instant;

    use super::*;

    fn http_check(method: &str, port: u16, path: &str, status: u16) -> HttpCheck {
        HttpCheck {
            method: method.to_string(),
            url: format!("http://127.0.0.1:{port}{path}"),
            host: "127.0.0.1".to_string(),
            port: Some(port),
            status,
        }
    }

    /// Reads one request's head and returns its request line.
    fn read_head(stream: &TcpStream) -> String {
        let mut reader = BufReader::new(stream);
        let mut first = String::new();
        let _ = reader.read_line(&mut first);
        let mut line = String::new();
        while reader.read_line(&mut line).map(|n| n > 0).unwrap_or(false) {
            if line == "\r\n" || line == "\n" {
                break;
            }
            line.clear();
        }
        first.trim_end().to_string()
    }

    /// Serves one connection on 127.0.0.1: reads the request head, lets
    /// `respond` write, and reports the request line.
    fn serve_one<F>(respond: F) -> (u16, mpsc::Receiver<String>)
    where
        F: FnOnce(&mut TcpStream) + Send + 'static,
    {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            if let Ok((mut stream, _)) = listener.accept() {
                let line = read_head(&stream);
                let _ = tx.send(line);
                respond(&mut stream);
            }
        });
        (port, rx)
    }

    fn respond_raw(raw: &'static str) -> impl FnOnce(&mut TcpStream) + Send + 'static {
        move |stream: &mut TcpStream| {
            let _ = stream.write_all(raw.as_bytes());
            let _ = stream.flush();
        }
    }

    const SECOND: Duration = Duration::from_secs(2);

    #[test]
    fn status_200_passes_and_notes_the_body() {
        let (port, rx) = serve_one(respond_raw(
            "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok",
        ));
        let (verdict, evidence) = check(&http_check("GET", port, "/health", 200), SECOND, 1024);
        assert_eq!(verdict, Verdict::Pass);
        assert_eq!(
            evidence.note.as_deref(),
            Some(
                format!("GET http://127.0.0.1:{port}/health -> 200 (body 2 bytes: \"ok\")")
                    .as_str()
            )
        );
        assert_eq!(rx.recv().ok().as_deref(), Some("GET /health HTTP/1.1"));
    }

    #[test]
    fn escape_sequences_in_the_body_are_shown_escaped() {
        let (port, _rx) = serve_one(respond_raw(
            "HTTP/1.1 200 OK\r\nContent-Length: 14\r\nConnection: close\r\n\r\n\x1b]0;pwned\x07\x1b[2J",
        ));
        let (_, evidence) = check(&http_check("GET", port, "/", 200), SECOND, 1024);
        let note = evidence.note.unwrap_or_default();
        assert!(!note.contains('\x1b') && !note.contains('\x07'), "{note:?}");
        assert!(
            note.ends_with("(body 14 bytes: \"\\u{1b}]0;pwned\\u{7}\\u{1b}[2J\")"),
            "{note}"
        );
    }

    #[test]
    fn expected_200_got_404_is_wrong_status() {
        let (port, _rx) = serve_one(respond_raw(
            "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot found",
        ));
        let (verdict, evidence) = check(&http_check("GET", port, "/x", 200), SECOND, 1024);
        assert_eq!(
            verdict,
            Verdict::Fail(Reason::WrongStatus {
                expected: 200,
                got: 404
            })
        );
        let note = evidence.note.unwrap_or_default();
        assert!(
            note.contains("-> 404 (body 9 bytes: \"not found\")"),
            "{note}"
        );
    }

    #[test]
    fn expected_404_got_404_passes() {
        let (port, _rx) = serve_one(respond_raw(
            "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        ));
        let (verdict, _) = check(&http_check("GET", port, "/gone", 404), SECOND, 1024);
        assert_eq!(verdict, Verdict::Pass);
    }

    const MOVED: &str = "HTTP/1.1 301 Moved Permanently\r\nLocation: /elsewhere\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";

    #[test]
    fn redirect_is_not_followed_and_fails_an_expected_200() {
        let (port, _rx) = serve_one(respond_raw(MOVED));
        let (verdict, _) = check(&http_check("GET", port, "/old", 200), SECOND, 1024);
        assert_eq!(
            verdict,
            Verdict::Fail(Reason::WrongStatus {
                expected: 200,
                got: 301
            })
        );
    }

    #[test]
    fn redirect_is_not_followed_and_passes_an_expected_301() {
        let (port, _rx) = serve_one(respond_raw(MOVED));
        let (verdict, evidence) = check(&http_check("GET", port, "/old", 301), SECOND, 1024);
        assert_eq!(verdict, Verdict::Pass);
        assert!(evidence.note.unwrap_or_default().contains("-> 301"));
    }

    #[test]
    fn nothing_listening_is_connection_refused() {
        let port = {
            let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
            listener.local_addr().expect("addr").port()
        };
        let (verdict, evidence) = check(&http_check("GET", port, "/", 200), SECOND, 1024);
        assert_eq!(
            verdict,
            Verdict::Fail(Reason::ConnectionRefused),
            "{evidence:?}"
        );
    }

    #[test]
    fn silent_server_times_out_promptly() {
        let (port, _rx) = serve_one(|stream: &mut TcpStream| {
            // Never answer; hold the connection until the client drops it.
            let mut sink = [0u8; 64];
            while stream.read(&mut sink).map(|n| n > 0).unwrap_or(false) {}
        });
        let started = Instant::now();
        let (verdict, evidence) = check(
            &http_check("GET", port, "/slow", 200),
            Duration::from_millis(300),
            1024,
        );
        let elapsed = started.elapsed();
        assert_eq!(
            verdict,
            Verdict::Fail(Reason::HttpTimeout { seconds: 1 }),
            "{evidence:?}"
        );
        assert!(elapsed < Duration::from_secs(2), "took {elapsed:?}");
    }

    #[test]
    fn huge_body_is_read_only_up_to_the_limit() {
        const TEN_MB: usize = 10 * 1024 * 1024;
        let (port, _rx) = serve_one(|stream: &mut TcpStream| {
            let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {TEN_MB}\r\n\r\n");
            if stream.write_all(head.as_bytes()).is_err() {
                return;
            }
            let chunk = [b'a'; 64 * 1024];
            let mut sent = 0;
            while sent < TEN_MB && stream.write_all(&chunk).is_ok() {
                sent += chunk.len();
            }
        });
        let started = Instant::now();
        let (verdict, evidence) = check(&http_check("GET", port, "/big", 200), SECOND, 1024);
        assert_eq!(verdict, Verdict::Pass);
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "took {:?}",
            started.elapsed()
        );
        let note = evidence.note.unwrap_or_default();
        assert!(
            note.contains("body 1024 bytes, read limit reached"),
            "{note}"
        );
        assert!(note.len() < 1024 + 200, "{note}");
    }

    #[test]
    fn the_method_is_sent() {
        let (port, rx) = serve_one(respond_raw(
            "HTTP/1.1 201 Created\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        ));
        let (verdict, _) = check(&http_check("POST", port, "/items", 201), SECOND, 1024);
        assert_eq!(verdict, Verdict::Pass);
        let line = rx.recv().unwrap_or_default();
        assert!(line.starts_with("POST "), "{line}");
    }

    #[test]
    fn head_has_no_body() {
        // A Content-Length on a HEAD answer announces a body that never comes.
        let (port, rx) = serve_one(|stream: &mut TcpStream| {
            let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n");
            let mut sink = [0u8; 64];
            while stream.read(&mut sink).map(|n| n > 0).unwrap_or(false) {}
        });
        let started = Instant::now();
        let (verdict, evidence) = check(&http_check("HEAD", port, "/", 200), SECOND, 1024);
        assert_eq!(verdict, Verdict::Pass, "{evidence:?}");
        assert!(started.elapsed() < Duration::from_secs(1));
        assert!(rx.recv().unwrap_or_default().starts_with("HEAD "));
    }

    #[test]
    fn malformed_response_is_http_failed() {
        let (port, _rx) = serve_one(respond_raw("garbage\r\n\r\n"));
        let (verdict, evidence) = check(&http_check("GET", port, "/", 200), SECOND, 1024);
        assert!(
            matches!(verdict, Verdict::Fail(Reason::HttpFailed { .. })),
            "{verdict:?} {evidence:?}"
        );
    }

    #[test]
    fn localhost_with_nothing_listening_is_connection_refused() {
        let port = {
            let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
            listener.local_addr().expect("addr").port()
        };
        let mut check_ = http_check("GET", port, "/", 200);
        check_.url = format!("http://localhost:{port}/");
        check_.host = "localhost".to_string();
        let (verdict, evidence) = check(&check_, SECOND, 1024);
        assert_eq!(
            verdict,
            Verdict::Fail(Reason::ConnectionRefused),
            "{evidence:?}"
        );
    }

    #[test]
    fn stalled_body_still_judges_the_status() {
        let (port, _rx) = serve_one(|stream: &mut TcpStream| {
            let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\npartial");
            let mut sink = [0u8; 64];
            while stream.read(&mut sink).map(|n| n > 0).unwrap_or(false) {}
        });
        let started = Instant::now();
        let (verdict, evidence) = check(
            &http_check("GET", port, "/", 200),
            Duration::from_millis(300),
            1024,
        );
        assert_eq!(verdict, Verdict::Pass);
        assert!(started.elapsed() < Duration::from_secs(2));
        let note = evidence.note.unwrap_or_default();
        assert!(note.contains("body read failed after 7 bytes"), "{note}");
        assert!(note.ends_with(": \"partial\")"), "{note}");
    }
}
