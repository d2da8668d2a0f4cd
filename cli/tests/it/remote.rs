//! Remote sources against real servers on 127.0.0.1, started and stopped
//! by the tests: nginx (Debian's package) serving a directory with Range
//! support, moto's S3 server, and a fault proxy written here that sits in
//! front of nginx and answers 500s, stalls past the timeout, cuts bodies,
//! lies in Content-Length or Content-Range, or drops the Range header.
//!
//! Every answer is compared with the naive model of the text ([`Model`]);
//! request counts come from nginx's access log and from lidx's own
//! counters (`LIDX_REMOTE_STATS=1`). A fault gives the right answer (after
//! retries) or exit 2 with one line naming the URL, never a wrong line.
//! Without nginx or moto_server the tests say SKIPPED (or fail under
//! `LIDX_REQUIRE_TOOLS=1`).

use crate::oracle::{Model, Rng};
use crate::run::{self, BIN, Out, Rules};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A port nothing listens on now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("bind 127.0.0.1:0")
}

/// Waits until something accepts connections on `port`.
fn wait_listening(port: u16, child: &mut Child, what: &str) {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(20) {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return;
        }
        if let Ok(Some(s)) = child.try_wait() {
            panic!("{what} exited before listening: {s}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("{what} did not listen on {port}");
}

/// nginx serving `dir/www` on a free port, with an access log that records
/// `request|range|status|bytes` per line. Stopped on drop (even on panic).
pub struct Nginx {
    child: Child,
    pub port: u16,
    pub www: PathBuf,
    log: PathBuf,
    /// With TLS: the CA that signed the server's certificate (PEM), which
    /// a client trusts through `SSL_CERT_FILE`.
    pub ca: Option<PathBuf>,
    _dir: tempfile::TempDir,
}

/// One access-log line.
#[derive(Debug, Clone)]
pub struct Hit {
    pub request: String,
    pub range: String,
    pub status: u16,
    pub bytes: u64,
}

impl Nginx {
    /// Starts nginx, or says SKIPPED and returns `None` when it cannot be
    /// found.
    pub fn start() -> Option<Nginx> {
        Nginx::start_with(false)
    }

    /// Starts nginx serving HTTPS on 127.0.0.1 with a new certificate
    /// signed by a new CA ([`certificates`], made by `openssl`), or says
    /// SKIPPED and returns `None`.
    pub fn start_tls() -> Option<Nginx> {
        if !run::have_tool("openssl", "HTTPS not tested") {
            return None;
        }
        Nginx::start_with(true)
    }

    fn start_with(tls: bool) -> Option<Nginx> {
        let nginx = ["nginx", "/usr/sbin/nginx"]
            .into_iter()
            .find(|n| run::tool_runs(n));
        let Some(nginx) = nginx else {
            run::missing_tool("nginx not found: remote reads over HTTP not tested");
            return None;
        };
        let dir = tempfile::tempdir().expect("tempdir");
        let www = dir.path().join("www");
        let tmp = dir.path().join("tmp");
        std::fs::create_dir_all(&www).unwrap();
        std::fs::create_dir_all(&tmp).unwrap();
        let port = free_port();
        let log = dir.path().join("access.log");
        let d = dir.path().display();
        let (listen, ca) = if tls {
            let ca = certificates(dir.path(), "server");
            (
                format!(
                    "listen 127.0.0.1:{port} ssl; ssl_certificate {d}/server.pem; \
                     ssl_certificate_key {d}/server.key;"
                ),
                Some(ca),
            )
        } else {
            (format!("listen 127.0.0.1:{port};"), None)
        };
        let conf = format!(
            "daemon off;\nmaster_process off;\nworker_processes 1;\npid {d}/nginx.pid;\n\
             error_log {d}/error.log;\nevents {{ worker_connections 256; }}\n\
             http {{\n  log_format lidx '$request|$http_range|$status|$body_bytes_sent';\n\
             access_log {d}/access.log lidx;\n  client_body_temp_path {d}/tmp;\n\
             proxy_temp_path {d}/tmp;\n  fastcgi_temp_path {d}/tmp;\n  uwsgi_temp_path {d}/tmp;\n\
             scgi_temp_path {d}/tmp;\n  server {{ {listen} root {d}/www; }}\n}}\n"
        );
        let conf_path = dir.path().join("nginx.conf");
        std::fs::write(&conf_path, conf).unwrap();
        let mut child = Command::new(nginx)
            .arg("-p")
            .arg(dir.path())
            .arg("-c")
            .arg(&conf_path)
            .arg("-e")
            .arg(dir.path().join("error.log"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start nginx");
        wait_listening(port, &mut child, "nginx");
        Some(Nginx {
            child,
            port,
            www,
            log,
            ca,
            _dir: dir,
        })
    }

    pub fn url(&self, name: &str) -> String {
        let scheme = if self.ca.is_some() { "https" } else { "http" };
        format!("{scheme}://127.0.0.1:{}/{name}", self.port)
    }

    /// Puts `data` at `name` (atomically: a reader sees the old or the new).
    pub fn put(&self, name: &str, data: &[u8]) {
        let tmp = self.www.join(format!(".{name}.tmp"));
        std::fs::write(&tmp, data).unwrap();
        std::fs::rename(&tmp, self.www.join(name)).unwrap();
    }

    /// Puts `data` at `name` and builds its sidecar in place with `args`
    /// (so the sidecar records the served file's modification time, as
    /// when a directory of archives and their sidecars is published);
    /// returns the sidecar's size.
    pub fn ship(&self, name: &str, data: &[u8], args: &[&str]) -> u64 {
        self.put(name, data);
        let f = self.www.join(name);
        let mut all: Vec<std::ffi::OsString> = vec!["index".into(), f.into(), "-q".into()];
        all.extend(args.iter().map(|a| a.into()));
        let o = run::lidx_with(all, Rules::SILENT_ERROR);
        assert_eq!(o.code, 0, "{}", o.stderr);
        std::fs::metadata(self.www.join(format!("{name}.lidx")))
            .unwrap()
            .len()
    }

    /// Access-log lines since the last call.
    pub fn hits(&self) -> Vec<Hit> {
        self.hits_at_least(0)
    }

    /// Access-log lines since the last call, waiting (a little) for at
    /// least `n`: nginx writes a line once the reply is sent, which may be
    /// after the client has exited.
    pub fn hits_at_least(&self, n: usize) -> Vec<Hit> {
        self.collect(n, 3)
    }

    /// Clears the access log once nginx has written nothing for 500 ms:
    /// before a measured command, so that a request still in flight from
    /// the previous one (a read-ahead hint cut off as its process exited,
    /// logged when nginx gets to it on a busy machine) is not counted.
    pub fn settle(&self) {
        self.collect(0, 12);
    }

    /// Access-log lines since the last call, once there are at least `n`
    /// and the log has not grown for `quiet` polls of 40 ms.
    fn collect(&self, n: usize, quiet: u32) -> Vec<Hit> {
        let start = Instant::now();
        let (mut last, mut same) = (usize::MAX, 0);
        loop {
            let text = std::fs::read_to_string(&self.log).unwrap_or_default();
            let lines = text.lines().count();
            same = if lines == last { same + 1 } else { 0 };
            if (lines >= n && same >= quiet) || start.elapsed() > Duration::from_secs(5) {
                break;
            }
            last = lines;
            std::thread::sleep(Duration::from_millis(40));
        }
        // nginx writes each line with one write(2) as the request ends.
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        std::fs::write(&self.log, "").unwrap();
        text.lines()
            .filter(|l| !l.is_empty())
            .map(|l| {
                let f: Vec<&str> = l.split('|').collect();
                Hit {
                    request: f[0].to_string(),
                    range: f[1].to_string(),
                    status: f[2].parse().unwrap_or(0),
                    bytes: f[3].parse().unwrap_or(0),
                }
            })
            .collect()
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A new certificate authority, `DIR/NAME-ca.pem`, and a server
/// certificate for 127.0.0.1 that it signed, `DIR/NAME.pem` with its key in
/// `DIR/NAME.key`; returns the CA's path. (A self-signed server certificate
/// is refused by rustls as a CA used as an end entity.)
pub fn certificates(dir: &Path, name: &str) -> PathBuf {
    let openssl = |args: &[&str]| {
        let o = Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .output()
            .expect("run openssl");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    let (ca, ca_key) = (format!("{name}-ca.pem"), format!("{name}-ca.key"));
    let (pem, key, csr) = (
        format!("{name}.pem"),
        format!("{name}.key"),
        format!("{name}.csr"),
    );
    let ext = format!("{name}.ext");
    std::fs::write(
        dir.join(&ext),
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    let mut a = vec!["req", "-x509"];
    a.extend(ec);
    a.extend([
        "-days",
        "2",
        "-subj",
        "/CN=lidx test CA",
        "-keyout",
        &ca_key,
        "-out",
        &ca,
    ]);
    openssl(&a);
    let mut a = vec!["req"];
    a.extend(ec);
    a.extend(["-subj", "/CN=127.0.0.1", "-keyout", &key, "-out", &csr]);
    openssl(&a);
    openssl(&[
        "x509",
        "-req",
        "-in",
        &csr,
        "-CA",
        &ca,
        "-CAkey",
        &ca_key,
        "-CAcreateserial",
        "-days",
        "2",
        "-extfile",
        &ext,
        "-out",
        &pem,
    ]);
    dir.join(ca)
}

/// moto's S3 server on a free port; stopped on drop.
pub struct Moto {
    child: Child,
    pub port: u16,
}

impl Moto {
    pub fn start() -> Option<Moto> {
        let runs = Command::new("moto_server")
            .arg("-h")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !runs {
            run::missing_tool("moto_server not found: remote reads over S3 not tested");
            return None;
        }
        let port = free_port();
        let mut child = Command::new("moto_server")
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start moto_server");
        wait_listening(port, &mut child, "moto_server");
        Some(Moto { child, port })
    }

    /// Creates `bucket` and puts `data` at `key` (moto accepts unsigned
    /// requests).
    pub fn put(&self, bucket: &str, key: &str, data: &[u8]) {
        let (s, _, _) = http(self.port, "PUT", &format!("/{bucket}"), &[], b"");
        assert!(s == 200 || s == 409, "create bucket: {s}");
        let (s, _, body) = http(self.port, "PUT", &format!("/{bucket}/{key}"), &[], data);
        assert_eq!(s, 200, "put {key}: {}", String::from_utf8_lossy(&body));
    }

    /// The environment `object_store`'s S3 builder reads.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            (
                "AWS_ENDPOINT_URL",
                format!("http://127.0.0.1:{}", self.port),
            ),
            ("AWS_ALLOW_HTTP", "true".into()),
            ("AWS_ACCESS_KEY_ID", "testing".into()),
            ("AWS_SECRET_ACCESS_KEY", "testing".into()),
            ("AWS_REGION", "us-east-1".into()),
        ]
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A minimal HTTP/1.1 exchange (one request per connection).
fn http(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).unwrap();
    s.write_all(body).unwrap();
    let mut resp = Vec::new();
    s.read_to_end(&mut resp).unwrap();
    let (status, hs, body) = parse_response(&resp);
    (status, hs, body.to_vec())
}

fn parse_response(resp: &[u8]) -> (u16, Vec<(String, String)>, &[u8]) {
    let end = resp
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("response head");
    let head = String::from_utf8_lossy(&resp[..end]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    (status, headers, &resp[end + 4..])
}

/// What the fault proxy does to a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Answer 500.
    ServerError,
    /// Say nothing for longer than the client's timeout.
    Stall,
    /// Send the head as nginx did, then half the body, then close.
    Truncate,
    /// Say (in Content-Length) and send half the body: a clean but short
    /// reply whose Content-Range promises more.
    ShortLength,
    /// Shift the Content-Range by one byte (the body unchanged).
    WrongRange,
    /// Drop the Range header: nginx answers 200 with the whole object.
    IgnoreRange,
    /// A reply mutated as the seed picks (its status line, Content-Range,
    /// Content-Length, ETag, headers, body length): what a broken server,
    /// proxy or cache may send (issue 21 item 24).
    Mutate(u64),
}

/// Mutation `seed` of an upstream reply's head (lines) and body.
fn mutate(seed: u64, head: &mut Vec<String>, body: &mut Vec<u8>) {
    let mut rng = Rng::new(seed);
    let set = |head: &mut Vec<String>, name: &str, value: Option<String>| {
        head.retain(|l| !l.to_ascii_lowercase().starts_with(&format!("{name}:")));
        if let Some(v) = value {
            head.push(format!("{name}: {v}"));
        }
    };
    let pick = |rng: &mut Rng, xs: &[&str]| xs[rng.below(xs.len() as u64) as usize].to_string();
    match seed % 8 {
        0 => {
            head[0] = pick(
                &mut rng,
                &[
                    "HTTP/1.1 200 OK",
                    "HTTP/1.1 204 No Content",
                    "HTTP/1.1 301 Moved",
                    "HTTP/1.1 404 Not Found",
                    "HTTP/1.1 416 Range Not Satisfiable",
                    "HTTP/1.1 503 Busy",
                    "HTTP/1.1 999 Odd",
                    "garbage",
                    "HTTP/1.1",
                ],
            )
        }
        1 => {
            let v = pick(
                &mut rng,
                &[
                    "bytes */123",
                    "bytes 5-3/10",
                    "bytes 0-1/xyz",
                    "",
                    "items 0-1/2",
                    "bytes 0-18446744073709551615/18446744073709551616",
                    "bytes -1-4/9",
                ],
            );
            set(head, "content-range", Some(v));
        }
        2 => {
            let v = [
                None,
                Some("0".into()),
                Some("1".into()),
                Some("99999999999".into()),
            ][rng.below(4) as usize]
                .clone();
            set(head, "content-length", v);
        }
        3 => set(
            head,
            "etag",
            Some(format!("\"changed-{}\"", rng.below(1000))),
        ),
        4 => {
            let keep = rng.below(body.len() as u64 + 1) as usize;
            body.truncate(keep);
            set(head, "content-length", Some(keep.to_string()));
        }
        5 => {
            body.extend_from_slice(b"junk after the body");
        }
        6 => head.truncate(1),
        _ => {
            body.clear();
            set(head, "content-length", Some("0".into()));
        }
    }
}

/// A proxy in front of nginx that applies `fault` to requests number
/// `from..from + n` (0-based, all paths), and passes the others.
pub struct Proxy {
    pub port: u16,
    stop: Arc<AtomicBool>,
}

impl Proxy {
    pub fn start(
        upstream: u16,
        fault: Fault,
        from: usize,
        n: usize,
        on_request: Option<Arc<dyn Fn(usize) + Send + Sync>>,
    ) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let count = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (c, s) = (Arc::clone(&count), Arc::clone(&stop));
        std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((conn, _)) => {
                        let i = c.fetch_add(1, Ordering::SeqCst);
                        if let Some(f) = &on_request {
                            f(i);
                        }
                        let faulty = i >= from && i - from < n;
                        std::thread::spawn(move || {
                            let _ = serve(conn, upstream, faulty.then_some(fault));
                        });
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        Proxy { port, stop }
    }

    pub fn url(&self, name: &str) -> String {
        format!("http://127.0.0.1:{}/{name}", self.port)
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// How long the proxy stalls; the client's timeout is set below it.
const STALL: Duration = Duration::from_secs(3);

/// Serves one request on `conn` (the proxy answers `Connection: close`).
fn serve(mut conn: TcpStream, upstream: u16, fault: Option<Fault>) -> std::io::Result<()> {
    conn.set_nonblocking(false)?;
    let mut head = Vec::new();
    let mut b = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = conn.read(&mut b)?;
        if n == 0 {
            return Ok(());
        }
        head.extend_from_slice(&b[..n]);
    }
    let text = String::from_utf8_lossy(&head).into_owned();
    let mut req = String::new();
    for (i, line) in text.split("\r\n").enumerate() {
        let lower = line.to_ascii_lowercase();
        if line.is_empty() || lower.starts_with("connection:") {
            continue;
        }
        if fault == Some(Fault::IgnoreRange) && lower.starts_with("range:") {
            continue;
        }
        req.push_str(line);
        req.push_str("\r\n");
        if i == 0 {
            req.push_str("Connection: close\r\n");
        }
    }
    req.push_str("\r\n");
    if fault == Some(Fault::Stall) {
        std::thread::sleep(STALL);
        return Ok(());
    }
    if fault == Some(Fault::ServerError) {
        conn.write_all(
            b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 5\r\nConnection: close\r\n\r\noops\n",
        )?;
        return Ok(());
    }
    let mut up = TcpStream::connect(("127.0.0.1", upstream))?;
    up.write_all(req.as_bytes())?;
    let mut resp = Vec::new();
    up.read_to_end(&mut resp)?;
    let end = resp.windows(4).position(|w| w == b"\r\n\r\n").unwrap_or(0);
    let (head, body) = (
        String::from_utf8_lossy(&resp[..end]).into_owned(),
        &resp[end + 4..],
    );
    let half = body.len() / 2;
    if let Some(Fault::Mutate(seed)) = fault {
        let mut lines: Vec<String> = head.split("\r\n").map(String::from).collect();
        let mut body = body.to_vec();
        mutate(seed, &mut lines, &mut body);
        let mut out = lines.join("\r\n");
        out.push_str("\r\n\r\n");
        conn.write_all(out.as_bytes())?;
        conn.write_all(&body)?;
        return conn.flush();
    }
    let mut out = String::new();
    for line in head.split("\r\n") {
        let lower = line.to_ascii_lowercase();
        let line = match fault {
            Some(Fault::ShortLength) if lower.starts_with("content-length:") => {
                format!("Content-Length: {half}")
            }
            Some(Fault::WrongRange) if lower.starts_with("content-range:") => {
                // bytes A-B/SIZE -> bytes A+1-B+1/SIZE
                let v = line.split_once(':').unwrap().1.trim();
                let (r, size) = v.trim_start_matches("bytes ").split_once('/').unwrap();
                let (a, b) = r.split_once('-').unwrap();
                let (a, b): (u64, u64) = (a.parse().unwrap(), b.parse().unwrap());
                let size: u64 = size.parse().unwrap();
                let (a, b) = if b + 1 < size {
                    (a + 1, b + 1)
                } else {
                    (a.saturating_sub(1), b - 1)
                };
                format!("Content-Range: bytes {a}-{b}/{size}")
            }
            _ => line.to_string(),
        };
        out.push_str(&line);
        out.push_str("\r\n");
    }
    out.push_str("\r\n");
    conn.write_all(out.as_bytes())?;
    match fault {
        Some(Fault::Truncate) | Some(Fault::ShortLength) => conn.write_all(&body[..half])?,
        _ => conn.write_all(body)?,
    }
    conn.flush()
}

/// A text with short and long lines (some longer than the spacing used
/// below), and no newline at the end.
fn text(seed: u64, lines: usize) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    for i in 0..lines {
        let len = match rng.below(50) {
            0 => 3000 + rng.below(20_000),
            _ => rng.below(120),
        };
        out.extend_from_slice(format!("line {i} ").as_bytes());
        if rng.below(7) == 0 {
            out.extend_from_slice(b"timeout ");
        }
        for _ in 0..len {
            out.push(b"abcdefgh xyz"[rng.below(12) as usize]);
        }
        out.push(b'\n');
    }
    out.extend_from_slice(b"last line without newline");
    out
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// A sidecar built by the binary for `data` named `name`, with `args`, in
/// another directory (as a publisher builds one before uploading).
fn sidecar(name: &str, data: &[u8], args: &[&str]) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join(name);
    std::fs::write(&f, data).unwrap();
    // Built elsewhere, long before the upload: the object's Last-Modified
    // is not the modification time the sidecar records.
    std::fs::File::options()
        .write(true)
        .open(&f)
        .and_then(|h| h.set_modified(std::time::UNIX_EPOCH + Duration::from_secs(1_000_000_000)))
        .unwrap();
    let o = run::lidx_with(
        [OsStrArg::from("index"), f.clone().into(), "-q".into()]
            .into_iter()
            .chain(args.iter().map(|a| OsStrArg::from(*a))),
        Rules::SILENT_ERROR,
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    std::fs::read(dir.path().join(format!("{name}.lidx"))).unwrap()
}

type OsStrArg = std::ffi::OsString;

/// Runs lidx with `env` and a private cache directory.
fn lidx_env(args: &[&str], env: &[(&str, String)], cache: &Path, rules: Rules) -> Out {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .stdin(Stdio::null())
        .env("XDG_CACHE_HOME", cache)
        .env_remove("LIDX_REMOTE_STATS");
    for (k, v) in env {
        cmd.env(k, v);
    }
    run::checked(cmd, rules)
}

/// The remote counters line (`LIDX_REMOTE_STATS=1`): (requests, bytes,
/// round trips).
fn stats(o: &Out) -> (u64, u64, u64) {
    let line = o
        .stderr
        .lines()
        .find_map(|l| l.strip_prefix("lidx: remote: "))
        .unwrap_or_else(|| panic!("no stats line in {:?}", o.stderr));
    let n: Vec<u64> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    (n[0], n[1], n[2])
}

/// Expected output of `grep -n PATTERN` (a literal) over lines `r` (0-based).
fn model_grep(m: &Model, r: std::ops::Range<u64>, pat: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for line in r.start..r.end.min(m.line_count()) {
        let l = m.bytes(m.span(line));
        if l.windows(pat.len()).any(|w| w == pat.as_bytes()) {
            out.extend_from_slice(format!("{}:", line + 1).as_bytes());
            out.extend_from_slice(l);
            if !l.ends_with(b"\n") {
                out.push(b'\n');
            }
        }
    }
    out
}

/// Every query command on `url` (a remote copy of `m`'s text), checked
/// against the model.
fn every_command(url: &str, m: &Model, env: &[(&str, String)], cache: &Path, ctx: &str) {
    let n = m.line_count();
    let q = |args: &[&str]| lidx_env(args, env, cache, Rules::SILENT_ERROR);
    for (a, b) in [(1, 1), (n / 2, n / 2 + 3), (n - 2, n), (n, n)] {
        let range = format!("{a}:{b}");
        let o = q(&["lines", url, &range, "-n"]);
        assert_eq!(o.code, 0, "{ctx}: lines {range}: {}", o.stderr);
        assert_eq!(
            o.stdout,
            m.render(&(a - 1..b), true),
            "{ctx}: lines {range}"
        );
    }
    let o = q(&["count", url]);
    assert_eq!(
        o.stdout_str(),
        format!("{n}\n"),
        "{ctx}: count {}",
        o.stderr
    );
    for off in [0, m.len() / 3, m.len() - 1] {
        let o = q(&["line-at", url, &off.to_string()]);
        let want = m.line_at(off).unwrap() + 1;
        assert_eq!(o.stdout_str(), format!("{want}\n"), "{ctx}: line-at {off}");
    }
    let (a, b) = (n / 4, n / 4 + n / 10);
    let range = format!("{}:{}", a + 1, b);
    let o = q(&["grep", "-n", "--lines", &range, "timeout", url]);
    assert_eq!(o.code, 0, "{ctx}: grep: {}", o.stderr);
    assert_eq!(o.stdout, model_grep(m, a..b, "timeout"), "{ctx}: grep");
    let o = q(&["grep", "-c", "timeout", url]);
    let all = model_grep(m, 0..n, "timeout");
    let hits = all.iter().filter(|&&c| c == b'\n').count();
    assert_eq!(o.stdout_str(), format!("{hits}\n"), "{ctx}: grep -c");
    let o = q(&["info", url, "--json"]);
    assert_eq!(o.code, 0, "{ctx}: info: {}", o.stderr);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["lines"], n, "{ctx}: info");
    assert_eq!(j["source_size"], m.len(), "{ctx}: info");
    assert_eq!(j["fresh"], true, "{ctx}: info");
    let o = q(&["verify", url, "--full"]);
    assert_eq!(o.code, 0, "{ctx}: verify: {}", o.stderr);
    assert!(
        o.stdout_str().contains(": ok: "),
        "{ctx}: {}",
        o.stdout_str()
    );
}

#[test]
fn nginx_every_command_plain_and_gzip_with_shipped_sidecars() {
    let Some(ng) = Nginx::start() else { return };
    let cache = tempfile::tempdir().unwrap();
    let data = text(1, 30_000);
    let m = Model::new(data.clone());
    let gz = gzip(&data);
    ng.ship("app.log", &data, &["--spacing", "1024"]);
    ng.ship("app.log.gz", &gz, &["--spacing", "1024", "--span", "65536"]);
    every_command(&ng.url("app.log"), &m, &[], cache.path(), "plain");
    every_command(&ng.url("app.log.gz"), &m, &[], cache.path(), "gzip");
    // The shipped sidecars were used: nothing was built, nothing uploaded.
    let hits = ng.hits();
    assert!(
        hits.iter().all(|h| h.request.starts_with("GET ")),
        "{hits:?}"
    );
    assert!(hits.iter().all(|h| h.status == 206), "{hits:?}");
    assert_eq!(std::fs::read_dir(cache.path()).unwrap().count(), 0);
}

/// HTTPS through rustls (with ring's crypto): every command over a
/// server whose certificate the client trusts (`SSL_CERT_FILE`, as
/// OpenSSL and rustls' native roots read it) answers as over HTTP; a
/// certificate it does not trust is a one-line error, exit 2, and no
/// text.
#[test]
fn https_with_a_trusted_certificate_and_an_untrusted_one() {
    let Some(ng) = Nginx::start_tls() else { return };
    let cache = tempfile::tempdir().unwrap();
    let data = text(3, 20_000);
    let m = Model::new(data.clone());
    ng.ship("app.log", &data, &["--spacing", "1024"]);
    ng.ship(
        "app.log.gz",
        &gzip(&data),
        &["--spacing", "1024", "--span", "65536"],
    );
    let trust = ng.ca.as_ref().unwrap().display().to_string();
    let env = [("SSL_CERT_FILE", trust)];
    every_command(&ng.url("app.log"), &m, &env, cache.path(), "https plain");
    every_command(&ng.url("app.log.gz"), &m, &env, cache.path(), "https gzip");
    // Another CA than the one that signed the server's certificate:
    // refused.
    let other = tempfile::tempdir().unwrap();
    let stranger = certificates(other.path(), "other").display().to_string();
    let url = ng.url("app.log.gz");
    let o = lidx_env(
        &["lines", &url, "7"],
        &[("SSL_CERT_FILE", stranger), ("LIDX_RETRIES", "0".into())],
        cache.path(),
        Rules::SILENT_ERROR,
    );
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stdout.is_empty());
    assert!(o.stderr.contains(&url), "{}", o.stderr);
    assert!(
        o.stderr.to_lowercase().contains("certificate"),
        "{}",
        o.stderr
    );
}

/// `data` packed by `lidx pack` into a seekable zstd archive (the
/// archive's bytes; its sidecar is left behind).
fn packed_zst(data: &[u8]) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("t.log");
    std::fs::write(&f, data).unwrap();
    let out = dir.path().join("t.log.zst");
    crate::zstd::pack(&f, &out, &["--frame", "65536"]);
    std::fs::read(out).unwrap()
}

/// `data` through the real `bgzip` (BGZF members of at most 64 KiB).
fn bgzip(data: &[u8]) -> Vec<u8> {
    let mut child = Command::new("bgzip")
        .arg("-c")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("bgzip");
    let mut stdin = child.stdin.take().unwrap();
    let input = data.to_vec();
    let feeder = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap().unwrap();
    assert!(out.status.success());
    out.stdout
}

#[test]
fn nginx_every_command_zstd_seekable_and_bgzf() {
    let Some(ng) = Nginx::start() else { return };
    let cache = tempfile::tempdir().unwrap();
    let data = text(3, 30_000);
    let m = Model::new(data.clone());
    let zst = packed_zst(&data);
    // Shipped with its sidecar, and without one (built in the cache from
    // range reads of the archive).
    ng.ship("app.log.zst", &zst, &[]);
    every_command(
        &ng.url("app.log.zst"),
        &m,
        &[],
        cache.path(),
        "zstd shipped",
    );
    ng.put("bare.log.zst", &zst);
    every_command(&ng.url("bare.log.zst"), &m, &[], cache.path(), "zstd built");
    assert_eq!(std::fs::read_dir(cache.path()).unwrap().count(), 1);
    if run::have_tool("bgzip", "remote BGZF archives") {
        let bgz = bgzip(&data);
        ng.ship("app.log.bgz", &bgz, &[]);
        every_command(&ng.url("app.log.bgz"), &m, &[], cache.path(), "bgzf");
    }
    let hits = ng.hits();
    assert!(
        hits.iter().all(|h| h.request.starts_with("GET ")),
        "{hits:?}"
    );
}

/// Issue 21, item 12: the content check of a shipped archive whose
/// object has another modification time than the sidecar recorded (every
/// upload) costs a bounded number of small reads in one round trip, for
/// every archive kind of many members or frames: BGZF, `pack --format gz`,
/// `pack` (zstd, by its frames' checksums). Once, it read every member's
/// 64 KiB block: the whole archive.
#[test]
fn nginx_content_check_of_a_shipped_pair_reads_little() {
    let Some(ng) = Nginx::start() else { return };
    let data = text(8, 120_000);
    let m = Model::new(data.clone());
    let mut kinds: Vec<(&str, Vec<u8>, &str)> = vec![
        ("p.log.zst", packed_zst(&data), "zstd frame checksums"),
        (
            "p.log.gz",
            {
                let dir = tempfile::tempdir().unwrap();
                let f = dir.path().join("t.log");
                std::fs::write(&f, &data).unwrap();
                let out = dir.path().join("t.log.gz");
                crate::zstd::pack(&f, &out, &["--format", "gz", "--frame", "65536"]);
                std::fs::read(out).unwrap()
            },
            "gzip member trailers",
        ),
    ];
    if run::have_tool("bgzip", "remote BGZF content check") {
        kinds.push(("b.log.bgz", bgzip(&data), "gzip member trailers"));
    }
    for (name, bytes, proof) in kinds {
        ng.ship(name, &bytes, &[]);
        // Uploaded: the object's time is not the one indexed.
        std::fs::File::options()
            .write(true)
            .open(ng.www.join(name))
            .unwrap()
            .set_modified(std::time::SystemTime::now() + Duration::from_secs(3600))
            .unwrap();
        let cache = tempfile::tempdir().unwrap();
        ng.settle();
        let url = ng.url(name);
        let o = lidx_env(
            &["info", "--json", &url],
            &[],
            cache.path(),
            Rules::SILENT_ERROR,
        );
        assert!(o.stdout_str().contains(proof), "{name}: {}", o.stdout_str());
        let hits = ng.hits_at_least(3);
        let archive: Vec<&Hit> = hits
            .iter()
            .filter(|h| h.request.starts_with(&format!("GET /{name} ")))
            .collect();
        let body: u64 = archive.iter().map(|h| h.bytes).sum();
        // The fingerprint's head and tail blocks, and a few hundred bytes
        // per member or frame checked (at most 64).
        assert!(
            archive.len() <= 66 && body <= 2 * 65_536 + 64 * 300,
            "{name}: {} requests, {body} bytes of {} read: {archive:?}",
            archive.len(),
            bytes.len()
        );
        let o = lidx_env(
            &["lines", &url, "5"],
            &[],
            cache.path(),
            Rules::SILENT_ERROR,
        );
        assert_eq!(o.code, 0, "{name}: {}", o.stderr);
        assert_eq!(o.stdout, m.bytes(m.span(4)), "{name}");
    }
}

/// Issue 21, item 14: a URL with a query (a presigned S3, GCS or Azure
/// URL) keeps its query on every request; its sidecar is `.lidx` on the
/// path with the same query, or a presigned sidecar URL given with
/// `--index`; a new signature of the same object reuses the sidecar built
/// in the cache directory.
#[test]
fn nginx_urls_with_a_query_string() {
    let Some(ng) = Nginx::start() else { return };
    let cache = tempfile::tempdir().unwrap();
    let data = text(14, 20_000);
    let m = Model::new(data.clone());
    ng.ship("q.log.gz", &gzip(&data), &[]);
    let url = format!(
        "{}?X-Amz-Signature=abc&X-Amz-Expires=60",
        ng.url("q.log.gz")
    );
    every_command(&url, &m, &[], cache.path(), "query, shipped");
    let hits = ng.hits();
    assert!(
        hits.iter().any(|h| h
            .request
            .starts_with("GET /q.log.gz.lidx?X-Amz-Signature=abc&X-Amz-Expires=60 ")),
        "{hits:?}"
    );
    assert!(
        hits.iter()
            .filter(|h| h.request.starts_with("GET /q.log.gz"))
            .all(|h| h.request.contains("?X-Amz-Signature=abc")),
        "{hits:?}"
    );
    // A sidecar of its own, presigned.
    let side = format!("{}?sig=for-the-sidecar", ng.url("q.log.gz.lidx"));
    let o = lidx_env(
        &["lines", &url, "7", "--index", &side],
        &[],
        cache.path(),
        Rules::SILENT_ERROR,
    );
    assert_eq!(o.stdout, m.bytes(m.span(6)), "{}", o.stderr);
    assert!(ng.hits().iter().any(|h| {
        h.request
            .starts_with("GET /q.log.gz.lidx?sig=for-the-sidecar ")
    }));
    // Without a shipped sidecar: built once in the cache directory, and
    // found again under another signature.
    ng.put("b.log.gz", &gzip(&data));
    let first = format!("{}?sig=one", ng.url("b.log.gz"));
    let o = lidx_env(&["count", &first], &[], cache.path(), Rules::SILENT_ERROR);
    assert_eq!(
        o.stdout_str(),
        format!("{}\n", m.line_count()),
        "{}",
        o.stderr
    );
    assert!(o.stderr.contains("built"), "{}", o.stderr);
    let second = format!("{}?sig=two", ng.url("b.log.gz"));
    let o = lidx_env(&["count", &second], &[], cache.path(), Rules::SILENT_ERROR);
    assert_eq!(
        o.stdout_str(),
        format!("{}\n", m.line_count()),
        "{}",
        o.stderr
    );
    assert!(!o.stderr.contains("built"), "{}", o.stderr);
}

/// Issue 21, item 16: several processes that query one object cold, at
/// once, stream it once: one builds the sidecar in the cache directory
/// while the others wait for it, then use it.
#[test]
fn nginx_cold_processes_at_once_stream_the_object_once() {
    let Some(ng) = Nginx::start() else { return };
    let cache = tempfile::tempdir().unwrap();
    let data = text(16, 150_000);
    let m = Model::new(data.clone());
    let gz = gzip(&data);
    ng.put("c.log.gz", &gz);
    let url = ng.url("c.log.gz");
    ng.settle();
    let kids: Vec<_> = (0..6)
        .map(|_| {
            let mut cmd = Command::new(BIN);
            cmd.args(["count", &url])
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .env("XDG_CACHE_HOME", cache.path());
            cmd.spawn().unwrap()
        })
        .collect();
    let mut built = 0;
    for k in kids {
        let o = k.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(o.stdout, format!("{}\n", m.line_count()).into_bytes());
        built += String::from_utf8_lossy(&o.stderr).contains("built") as u32;
    }
    assert_eq!(built, 1, "one process built the sidecar");
    let hits = ng.hits_at_least(6);
    let body: u64 = hits
        .iter()
        .filter(|h| h.request.starts_with("GET /c.log.gz "))
        .map(|h| h.bytes)
        .sum();
    // The object once, and each process's fingerprint blocks.
    assert!(
        body <= gz.len() as u64 + 6 * 2 * 65_536,
        "{body} bytes for an object of {}",
        gz.len()
    );
    let sidecars = std::fs::read_dir(cache.path().join("lidx"))
        .unwrap()
        .count();
    assert_eq!(sidecars, 1, "one sidecar, no lock or temp files left");
}

#[test]
fn nginx_without_sidecar_builds_one_in_the_cache_directory() {
    let Some(ng) = Nginx::start() else { return };
    let cache = tempfile::tempdir().unwrap();
    let data = text(2, 20_000);
    let m = Model::new(data.clone());
    ng.put("a.log.gz", &gzip(&data));
    let url = ng.url("a.log.gz");
    // --no-build: an error naming the URL, nothing written.
    let o = lidx_env(
        &["count", &url, "--no-build"],
        &[],
        cache.path(),
        Rules::SILENT_ERROR,
    );
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains(&url), "{}", o.stderr);
    assert!(!cache.path().join("lidx").exists());
    ng.settle();
    // The first query streams the object once and keeps the sidecar.
    let o = lidx_env(&["count", &url], &[], cache.path(), Rules::SILENT_ERROR);
    assert_eq!(
        o.stdout_str(),
        format!("{}\n", m.line_count()),
        "{}",
        o.stderr
    );
    assert!(
        o.stderr.contains("lidx: note: ") && o.stderr.contains("built"),
        "{}",
        o.stderr
    );
    let built: Vec<_> = std::fs::read_dir(cache.path().join("lidx"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(built.len(), 1, "{built:?}");
    assert!(built[0].ends_with("-a.log.gz.lidx"), "{built:?}");
    let hits = ng.hits();
    let body: u64 = hits
        .iter()
        .filter(|h| h.request.starts_with("GET /a.log.gz "))
        .map(|h| h.bytes)
        .sum();
    let size = std::fs::metadata(ng.www.join("a.log.gz")).unwrap().len();
    // Read once (plus the fingerprint's blocks, which overlap the scan).
    assert!(
        body <= size + 2 * 65536,
        "{body} bytes read of {size}: {hits:?}"
    );
    assert!(
        hits.iter().all(|h| h.request.starts_with("GET ")),
        "{hits:?}"
    );
    // Later queries use it: no request for URL.lidx, and only the source.
    every_command(&url, &m, &[], cache.path(), "built");
    let hits = ng.hits();
    assert!(
        hits.iter().all(|h| h.request.starts_with("GET /a.log.gz ")),
        "{hits:?}"
    );
    // A replaced object: the cached sidecar is stale and rebuilt.
    let data2 = text(3, 5_000);
    ng.put("a.log.gz", &gzip(&data2));
    let o = lidx_env(&["count", &url], &[], cache.path(), Rules::SILENT_ERROR);
    assert_eq!(
        o.stdout_str(),
        format!("{}\n", Model::new(data2).line_count())
    );
    assert!(o.stderr.contains("rebuilt"), "{}", o.stderr);
    // An explicit local --index is built there.
    let side = cache.path().join("explicit.lidx");
    let o = lidx_env(
        &["lines", &url, "2", "--index", side.to_str().unwrap()],
        &[],
        cache.path(),
        Rules::SILENT_ERROR,
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(side.exists());
}

/// Round trips and requests of a cold goto, counted by lidx and by nginx.
#[test]
fn nginx_cold_goto_round_trips() {
    let Some(ng) = Nginx::start() else { return };
    let data = text(4, 60_000);
    let m = Model::new(data.clone());
    let gz = gzip(&data);
    for (name, bytes, args) in [
        ("small.log", data.clone(), vec![]),
        ("big.log", data.clone(), vec!["--spacing", "256"]),
        ("small.log.gz", gz.clone(), vec![]),
        (
            "big.log.gz",
            gz.clone(),
            vec!["--spacing", "256", "--span", "32768"],
        ),
    ] {
        let side_len = ng.ship(name, &bytes, &args);
        let head_holds_all = side_len <= 64 << 10;
        for line in [m.line_count() - 7, m.line_count() / 2, 3] {
            let cache = tempfile::tempdir().unwrap();
            ng.settle();
            let o = lidx_env(
                &["lines", &ng.url(name), &line.to_string()],
                &[("LIDX_REMOTE_STATS", "1".into())],
                cache.path(),
                Rules::SILENT_ERROR,
            );
            assert_eq!(
                o.stdout,
                m.render(&(line - 1..line), false),
                "{name} {line}"
            );
            let (requests, bytes, trips) = stats(&o);
            let hits = ng.hits_at_least(requests as usize);
            // A hint still in flight when the answer was found may be
            // cut short (or not sent) as the process exits: nginx's log is
            // the measure, lidx's counters a bound on it.
            assert!(hits.len() as u64 <= requests, "{name}: {hits:?}");
            // Every request is a range read: nothing is downloaded whole.
            assert!(
                hits.iter().all(|h| h.range.starts_with("bytes=")),
                "{hits:?}"
            );
            let sent: u64 = hits.iter().map(|h| h.bytes).sum();
            assert!(bytes <= sent, "{name}: {bytes} received, {sent} sent");
            // Head-first (1.2): the head, the leaf, the span. A gzip
            // sidecar's access points follow its leaves: the leaf's round
            // trip also fetches the access-point pages the target's share
            // of the text points to (and record 0's, checked at first use).
            let gzip = name.ends_with(".gz");
            assert!(
                trips <= 3,
                "{name} line {line}: {trips} round trips: {hits:?} {}",
                o.stderr
            );
            // R1: source head and tail, sidecar head; R2: the leaf (and
            // for gzip up to two runs of access-point pages); R3: the span
            // (for gzip with the window's blob pages).
            let most = if gzip { 3 + 3 + 2 } else { 3 + 1 + 1 };
            assert!(requests <= most, "{name}: {requests} requests: {hits:?}");
            let _ = head_holds_all;
            eprintln!(
                "{name} line {line}: {requests} requests, {bytes} bytes, {trips} round trips"
            );
        }
    }
}

#[test]
fn nginx_grep_fetches_chunks_in_order_with_bounded_memory() {
    let Some(ng) = Nginx::start() else { return };
    let cache = tempfile::tempdir().unwrap();
    let data = text(5, 80_000);
    let m = Model::new(data.clone());
    let gz = gzip(&data);
    ng.ship("g.log", &data, &[]);
    ng.ship("g.log.gz", &gz, &["--span", "65536"]);
    let n = m.line_count();
    for name in ["g.log", "g.log.gz"] {
        for j in ["1", "4"] {
            let range = format!("{}:{}", n / 10, n - 10);
            let o = lidx_env(
                &[
                    "grep",
                    "-n",
                    "-j",
                    j,
                    "--chunk-bytes",
                    "65536",
                    "--lines",
                    &range,
                    "timeout",
                    &ng.url(name),
                ],
                &[],
                cache.path(),
                Rules::SILENT_ERROR,
            );
            assert_eq!(o.code, 0, "{}", o.stderr);
            assert_eq!(
                o.stdout,
                model_grep(&m, n / 10 - 1..n - 10, "timeout"),
                "{name} -j {j}"
            );
        }
        // Each byte of the range is fetched about once (block rounding and
        // the gzip read-ahead aside).
        let hits = ng.hits();
        let body: u64 = hits.iter().map(|h| h.bytes).sum();
        let size = std::fs::metadata(ng.www.join(name)).unwrap().len();
        assert!(body < 3 * size, "{name}: {body} bytes for {size}");
    }
}

#[test]
fn s3_moto_every_command_and_a_built_sidecar() {
    let Some(s3) = Moto::start() else { return };
    let cache = tempfile::tempdir().unwrap();
    let data = text(6, 20_000);
    let m = Model::new(data.clone());
    let gz = gzip(&data);
    s3.put("logs", "2026/app.log.gz", &gz);
    s3.put(
        "logs",
        "2026/app.log.gz.lidx",
        &sidecar("app.log.gz", &gz, &[]),
    );
    s3.put("logs", "plain/app.log", &data);
    let env = s3.env();
    every_command(
        "s3://logs/2026/app.log.gz",
        &m,
        &env,
        cache.path(),
        "s3 gzip",
    );
    every_command(
        "s3://logs/plain/app.log",
        &m,
        &env,
        cache.path(),
        "s3 built",
    );
    // A plain object shipped with a sidecar built elsewhere: its upload
    // time is not the file's modification time, so the first query reads
    // it once to check its content (spec §6.3), and later ones remember
    // that for this URL and ETag.
    s3.put("logs", "shipped/app.log", &data);
    s3.put(
        "logs",
        "shipped/app.log.lidx",
        &sidecar("app.log", &data, &[]),
    );
    let url = "s3://logs/shipped/app.log";
    let mut stats_env = env.clone();
    stats_env.push(("LIDX_REMOTE_STATS", "1".into()));
    let want = m.render(&(4..5), false);
    let o = lidx_env(
        &["lines", url, "5"],
        &stats_env,
        cache.path(),
        Rules::SILENT_ERROR,
    );
    assert_eq!(o.stdout, want, "{}", o.stderr);
    assert!(o.stderr.contains("verified"), "{}", o.stderr);
    assert!(stats(&o).1 >= data.len() as u64, "{}", o.stderr);
    let o = lidx_env(
        &["lines", url, "5"],
        &stats_env,
        cache.path(),
        Rules::SILENT_ERROR,
    );
    assert_eq!(o.stdout, want, "{}", o.stderr);
    assert!(stats(&o).1 < data.len() as u64 / 2, "{}", o.stderr);
    // A missing object and a missing bucket: one line naming the URL.
    for url in ["s3://logs/none.log", "s3://nobucket/x.log"] {
        let o = lidx_env(&["count", url], &env, cache.path(), Rules::SILENT_ERROR);
        assert_eq!(o.code, 2);
        assert!(o.stderr.contains(url), "{}", o.stderr);
    }
}

/// Issue 21, item 15: an AWS user's set-up as the AWS CLI reads it: a
/// profile's keys, region and endpoint from `~/.aws/credentials` and
/// `~/.aws/config` (no AWS_* variable, no AWS_ALLOW_HTTP for an http://
/// endpoint the profile names); without credentials, or with a profile
/// that does not exist, one line that says what to set.
#[test]
fn s3_moto_reads_aws_profiles_and_says_what_to_set() {
    let Some(s3) = Moto::start() else { return };
    let data = text(15, 5_000);
    let m = Model::new(data.clone());
    s3.put("logs", "p/app.log", &data);
    let home = tempfile::tempdir().unwrap();
    let aws = home.path().join(".aws");
    std::fs::create_dir(&aws).unwrap();
    std::fs::write(
        aws.join("credentials"),
        "[default]\naws_access_key_id = wrong\naws_secret_access_key = wrong\n\n\
         [dev]\naws_access_key_id = testing\naws_secret_access_key = testing\n",
    )
    .unwrap();
    std::fs::write(
        aws.join("config"),
        format!(
            "[profile dev]\nregion = us-east-1\nendpoint_url = http://127.0.0.1:{}\n",
            s3.port
        ),
    )
    .unwrap();
    let run = |env: &[(&str, &str)]| {
        let mut cmd = Command::new(BIN);
        cmd.args(["lines", "s3://logs/p/app.log", "3"])
            .stdin(Stdio::null())
            .env("HOME", home.path())
            .env("XDG_CACHE_HOME", home.path().join("cache"))
            .env("LIDX_TIMEOUT", "3")
            .env("LIDX_RETRIES", "0");
        for k in [
            "AWS_ACCESS_KEY_ID",
            "AWS_SECRET_ACCESS_KEY",
            "AWS_SESSION_TOKEN",
            "AWS_REGION",
            "AWS_DEFAULT_REGION",
            "AWS_ENDPOINT_URL",
            "AWS_ENDPOINT",
            "AWS_ALLOW_HTTP",
            "AWS_PROFILE",
            "AWS_DEFAULT_PROFILE",
            "AWS_SHARED_CREDENTIALS_FILE",
            "AWS_CONFIG_FILE",
        ] {
            cmd.env_remove(k);
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        run::checked(cmd, Rules::SILENT_ERROR)
    };
    let o = run(&[("AWS_PROFILE", "dev")]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(o.stdout, m.bytes(m.span(2)));
    let o = run(&[("AWS_PROFILE", "nope")]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains("AWS_PROFILE=nope") && o.stderr.contains("credentials"),
        "{}",
        o.stderr
    );
    // No credentials anywhere (the endpoint given, no profile files).
    std::fs::remove_file(aws.join("credentials")).unwrap();
    std::fs::remove_file(aws.join("config")).unwrap();
    let endpoint = format!("http://127.0.0.1:{}", s3.port);
    let o = run(&[("AWS_ENDPOINT_URL", &endpoint), ("AWS_REGION", "us-east-1")]);
    assert_eq!(o.code, 2, "{}", o.stdout_str());
    assert!(
        o.stderr.contains("AWS_ACCESS_KEY_ID") && !o.stderr.contains("169.254"),
        "{}",
        o.stderr
    );
}

/// The library: `OpenOptions::open` on a URL, and a `RemoteSource` shared
/// by threads that read it at random, under a cache smaller than the
/// object.
#[test]
fn library_on_a_url_and_remote_reads_from_threads() {
    let Some(ng) = Nginx::start() else { return };
    let data = text(7, 20_000);
    let m = Model::new(data.clone());
    let gz = gzip(&data);
    ng.ship("lib.log.gz", &gz, &[]);
    let opened = lidx::OpenOptions::new()
        .sidecar(ng.url("lib.log.gz.lidx"))
        .refresh(false)
        .open(ng.url("lib.log.gz"))
        .unwrap();
    let index = opened.index;
    assert_eq!(index.line_count(), m.line_count());
    for line in [0, 777, m.line_count() - 1] {
        assert_eq!(index.line_span(line).unwrap(), m.span(line));
    }
    assert_eq!(
        index.line_at(m.len() / 2).unwrap(),
        m.line_at(m.len() / 2).unwrap()
    );

    use lidx::io::ReadAt;
    use lidx::io::remote::{First, Location, RemoteOptions, RemoteSource};
    let opts = RemoteOptions {
        cache_bytes: 256 << 10,
        ..RemoteOptions::default()
    };
    let loc = Location::parse(&ng.url("lib.log.gz"), &opts).unwrap();
    let src = RemoteSource::open(&loc, &[First::Head(1000)]).unwrap();
    assert_eq!(src.len(), gz.len() as u64);
    std::thread::scope(|s| {
        for t in 0..8u64 {
            let (src, gz) = (&src, &gz);
            s.spawn(move || {
                let mut rng = Rng::new(t);
                let mut buf = vec![0u8; 200_000];
                for _ in 0..40 {
                    let off = rng.below(gz.len() as u64);
                    let want = 1 + rng.below(buf.len() as u64) as usize;
                    let n = src.read_full_at(&mut buf[..want], off).unwrap();
                    let end = (off as usize + want).min(gz.len());
                    assert_eq!(&buf[..n], &gz[off as usize..end], "read {want} at {off}");
                }
            });
        }
    });
    let st = src.stats();
    assert!(st.requests > 1 && st.bytes > 0, "{st:?}");
}

/// Expected outcome of a query through a faulty server.
fn check_fault(o: &Out, want: &[u8], url_part: &str, must_succeed: bool, ctx: &str) {
    match o.code {
        0 => assert_eq!(o.stdout, want, "{ctx}: wrong answer"),
        2 => {
            assert!(
                !must_succeed,
                "{ctx}: should have succeeded after retries: {}",
                o.stderr
            );
            assert!(
                o.stderr.contains(url_part),
                "{ctx}: error does not name the URL: {}",
                o.stderr
            );
            assert!(
                want.starts_with(&o.stdout),
                "{ctx}: output before the error is wrong"
            );
        }
        c => panic!("{ctx}: exit {c}: {}", o.stderr),
    }
}

/// Issue 21, item 24: replies mutated at random (status lines,
/// Content-Range, Content-Length, ETag, headers, body lengths), one reply
/// at a random place in a query's requests, or every reply: each query
/// answers exactly, or fails with one line naming the URL; never a panic,
/// never a wrong line.
#[test]
fn mutated_replies_are_exact_answers_or_one_line_errors() {
    let Some(ng) = Nginx::start() else { return };
    let data = text(24, 8_000);
    let m = Model::new(data.clone());
    ng.ship("r.log", &data, &[]);
    ng.ship("r.log.gz", &gzip(&data), &["--span", "65536"]);
    let env = [
        ("LIDX_TIMEOUT", "1".to_string()),
        ("LIDX_RETRIES", "1".to_string()),
    ];
    let n = m.line_count();
    let want = m.render(&(n / 2 - 1..n / 2 + 1), false);
    let mut rng = Rng::new(2124);
    let mut failed = 0;
    for seed in 0..48u64 {
        let name = ["r.log", "r.log.gz"][(seed / 8 % 2) as usize];
        let (from, count) = if seed % 3 == 0 {
            (0, usize::MAX)
        } else {
            (rng.below(4) as usize, 1)
        };
        let proxy = Proxy::start(ng.port, Fault::Mutate(seed), from, count, None);
        let cache = tempfile::tempdir().unwrap();
        let url = proxy.url(name);
        let range = format!("{}:+2", n / 2);
        let o = lidx_env(
            &["lines", &url, &range],
            &env,
            cache.path(),
            Rules::SILENT_ERROR,
        );
        let ctx = format!(
            "seed {seed} ({}) {name} from {from} count {count}",
            seed % 8
        );
        let host = format!("http://127.0.0.1:{}/", proxy.port);
        check_fault(&o, &want, &host, false, &ctx);
        failed += (o.code == 2) as u32;
    }
    // Most mutations are refused, some are harmless (an unknown header).
    assert!(failed >= 10, "{failed} of 48 refused");
}

#[test]
fn faults_are_retried_or_one_line_naming_the_url() {
    let Some(ng) = Nginx::start() else { return };
    let data = text(8, 20_000);
    let m = Model::new(data.clone());
    let gz = gzip(&data);
    ng.ship("f.log", &data, &[]);
    ng.ship("f.log.gz", &gz, &["--span", "65536"]);
    let env = [
        ("LIDX_TIMEOUT", "1".to_string()),
        ("LIDX_RETRIES", "2".to_string()),
    ];
    let n = m.line_count();
    let line = n - 100;
    let want = m.render(&(line - 1..line + 1), false);
    use Fault::*;
    for fault in [
        ServerError,
        Stall,
        Truncate,
        ShortLength,
        WrongRange,
        IgnoreRange,
    ] {
        for name in ["f.log", "f.log.gz"] {
            // Transient (one faulty request, in the first round trip or
            // later), then persistent.
            for (from, count) in [(0, 1), (3, 1), (0, usize::MAX)] {
                let proxy = Proxy::start(ng.port, fault, from, count, None);
                let cache = tempfile::tempdir().unwrap();
                let url = proxy.url(name);
                let range = format!("{line}:+2");
                let o = lidx_env(
                    &["lines", &url, &range],
                    &env,
                    cache.path(),
                    Rules::SILENT_ERROR,
                );
                let ctx = format!("{fault:?} {name} from {from} count {count}");
                // A server that ignores Range or lies about it is not
                // worth asking again for the same thing; the others are.
                let transient = count == 1 && !matches!(fault, IgnoreRange);
                let host = format!("http://127.0.0.1:{}/", proxy.port);
                check_fault(&o, &want, &host, transient, &ctx);
                if count == usize::MAX {
                    assert_eq!(o.code, 2, "{ctx}: a persistent fault must fail");
                }
                let o = lidx_env(&["count", &url], &env, cache.path(), Rules::SILENT_ERROR);
                check_fault(&o, format!("{n}\n").as_bytes(), &host, transient, &ctx);
            }
        }
    }
}

/// An object replaced while lidx reads it: an error, never a mix.
#[test]
fn replaced_object_is_an_error() {
    let Some(ng) = Nginx::start() else { return };
    let data = text(9, 60_000);
    let m = Model::new(data.clone());
    ng.ship("r.log", &data, &["--spacing", "4096"]);
    let www = ng.www.clone();
    let mut other = data.clone();
    other.reverse();
    other.extend_from_slice(b"\nmore\n");
    // After the third request (the first round trip), the object changes.
    let replace = Arc::new(move |i: usize| {
        if i == 3 {
            let tmp = www.join(".r.tmp");
            std::fs::write(&tmp, &other).unwrap();
            std::fs::rename(&tmp, www.join("r.log")).unwrap();
        }
    });
    let proxy = Proxy::start(ng.port, Fault::ServerError, usize::MAX, 0, Some(replace));
    let cache = tempfile::tempdir().unwrap();
    let url = proxy.url("r.log");
    let n = m.line_count();
    let o = lidx_env(
        &[
            "grep",
            "-c",
            "--lines",
            &format!("{}:", n / 2),
            "timeout",
            &url,
        ],
        &[],
        cache.path(),
        Rules::SILENT_ERROR,
    );
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains(&url) && o.stderr.contains("replaced"),
        "{}",
        o.stderr
    );
}

#[test]
fn bad_urls_are_one_line_errors() {
    let Some(ng) = Nginx::start() else { return };
    let cache = tempfile::tempdir().unwrap();
    ng.put("x.log", b"a\nb\n");
    let missing = ng.url("missing.log");
    let closed = format!("http://127.0.0.1:{}/x.log", free_port());
    let env = [
        ("LIDX_TIMEOUT", "1".to_string()),
        ("LIDX_RETRIES", "1".to_string()),
    ];
    for (args, needle) in [
        (vec!["lines", &missing, "1"], missing.as_str()),
        (vec!["count", &closed], closed.as_str()),
        (vec!["lines", "-f", &ng.url("x.log"), "1:"], "follow"),
        (vec!["info", &missing], missing.as_str()),
        (vec!["lines", "http://[::1", "1"], "http://[::1"),
    ] {
        let o = lidx_env(&args, &env, cache.path(), Rules::SILENT_ERROR);
        assert_eq!(o.code, 2, "{args:?}: {}", o.stderr);
        assert!(o.stderr.contains(needle), "{args:?}: {}", o.stderr);
    }
    // An empty object (nginx answers a range of it with 200 and no body).
    ng.put("empty.log", b"");
    let o = lidx_env(
        &["count", &ng.url("empty.log")],
        &env,
        cache.path(),
        Rules::SILENT_ERROR,
    );
    assert_eq!(
        (o.code, o.stdout_str()),
        (0, "0\n".to_string()),
        "{}",
        o.stderr
    );
    // An explicit remote sidecar is never written to.
    let o = lidx_env(
        &[
            "lines",
            &ng.url("x.log"),
            "1",
            "--index",
            &ng.url("nothing.lidx"),
        ],
        &env,
        cache.path(),
        Rules::SILENT_ERROR,
    );
    assert_eq!(o.code, 2, "{}", o.stderr);
    let hits = ng.hits();
    assert!(
        hits.iter()
            .all(|h| h.request.starts_with("GET ") || h.request.starts_with("HEAD ")),
        "{hits:?}"
    );
}

/// GCS and Azure are opt-in features: a build without them says which
/// feature a `gs://` or `az://` URL needs, in one line, exit 2, before any
/// request.
#[test]
#[cfg(not(any(feature = "gcs", feature = "azure")))]
fn stores_left_out_of_the_build_name_their_feature() {
    let cache = tempfile::tempdir().unwrap();
    for (url, feature) in [
        ("gs://bucket/app.log", "gcs"),
        ("az://container/app.log", "azure"),
        ("abfss://c@a.dfs.core.windows.net/app.log", "azure"),
    ] {
        let o = lidx_env(&["count", url], &[], cache.path(), Rules::SILENT_ERROR);
        assert_eq!(o.code, 2, "{o:?}");
        assert!(o.stdout.is_empty());
        let want = format!("lidx: {url}: ");
        assert!(o.stderr.starts_with(&want), "{}", o.stderr);
        assert!(
            o.stderr
                .contains(&format!("built with the {feature} feature (cargo install")),
            "{}",
            o.stderr
        );
        assert_eq!(o.stderr.lines().count(), 1, "{}", o.stderr);
    }
}
