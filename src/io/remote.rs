//! [`ReadAt`] over an object in a remote store: HTTP(S) with Range
//! requests, S3, Google Cloud Storage and Azure Blob Storage, through the
//! `object_store` crate.
//!
//! What it is: a positional reader whose reads are ranged `GET`s, with a
//! bounded cache of the byte ranges fetched, so that the layers above (the
//! page cache, the tree, `GzText`, the range scan) read a remote object
//! exactly as a local file. What it is not: a writer (lidx never uploads)
//! nor a mirror (nothing is downloaded whole unless a caller reads it all).
//!
//! - **Runtime inside.** `object_store` is async; a small multi-threaded
//!   tokio runtime (two workers, created on the first remote open) runs
//!   every request. Callers stay synchronous: a read that misses starts a
//!   fetch on the runtime and waits for it on a condition variable, so any
//!   number of threads may call [`ReadAt::read_at`] at once.
//! - **Round trips, not bytes.** A miss fetches whole 64 KiB blocks around
//!   the read, a read that continues the previous one (a sequential stream)
//!   fetches a window that doubles up to 8 MiB and starts the next window
//!   ahead, and [`ReadAt::will_need`] starts fetches without waiting, so
//!   that what a caller knows it will read next (a scan's next chunks, a
//!   gzip span's compressed bytes and window) arrives in one round trip.
//!   Fetched ranges never overlap; a read waits for a fetch in flight
//!   rather than asking twice.
//! - **Identity.** The first replies give the object's size, ETag and
//!   Last-Modified ([`Identity`]). Every later request carries `If-Match`
//!   with a strong ETag, and every reply's size and ETag are compared with
//!   the first: an object replaced while lidx reads it is an error
//!   ([`Error::SourceChanged`]), never a mix of two versions.
//! - **Validation.** `object_store` refuses a reply without `206` to a
//!   ranged request (a server that ignores Range) and one whose
//!   `Content-Range` differs from the range asked; on top of that every
//!   body is counted, and one that holds fewer or more bytes than asked is
//!   an error (retried when short).
//! - **Faults.** A 5xx, a 429, a timeout or a dropped connection is retried
//!   by `object_store` up to [`RemoteOptions::retries`] times with
//!   exponential back-off; a short body or a wrong range is retried as many
//!   times here. Then the read fails with one line naming the URL
//!   ([`Error::Remote`]).

use super::ReadAt;
use crate::error::{Error, Result};
use bytes::Bytes;
use futures_util::StreamExt;
use object_store::{GetOptions, GetRange, ObjectStore, ObjectStoreScheme, path::Path as ObjPath};
use parking_lot::{Condvar, Mutex};
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// Fetches are whole blocks of this size around a read (the last one of
/// the object excepted).
pub const BLOCK: u64 = 64 << 10;

/// The largest single request.
pub const MAX_FETCH: u64 = 8 << 20;

/// The first window of a sequential stream; each next one doubles, up to
/// [`MAX_FETCH`].
const SEQ_FIRST: u64 = 1 << 20;

pub use super::is_url;

/// How remote objects are read.
#[derive(Debug, Clone)]
pub struct RemoteOptions {
    /// Time allowed for one request, body included (default 30 s, or
    /// `$LIDX_TIMEOUT` seconds).
    pub timeout: Duration,
    /// Retries of a failed request (default 3, or `$LIDX_RETRIES`).
    pub retries: usize,
    /// Byte budget of the cache of fetched ranges, per object (default
    /// 64 MiB). Fetches in flight are bounded separately (hints stop at
    /// half the budget).
    pub cache_bytes: usize,
}

impl Default for RemoteOptions {
    fn default() -> Self {
        let timeout = std::env::var("LIDX_TIMEOUT")
            .ok()
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s > 0.0)
            .map(Duration::from_secs_f64)
            .unwrap_or(Duration::from_secs(30));
        let retries = std::env::var("LIDX_RETRIES")
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .unwrap_or(3)
            .min(20);
        RemoteOptions {
            timeout,
            retries,
            cache_bytes: 64 << 20,
        }
    }
}

/// The runtime every remote request runs on: two worker threads, created
/// on first use and kept for the life of the process.
fn runtime() -> Result<&'static tokio::runtime::Runtime> {
    static RT: OnceLock<std::result::Result<tokio::runtime::Runtime, String>> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("lidx-remote")
            .enable_all()
            .build()
            .map_err(|e| e.to_string())
    })
    .as_ref()
    .map_err(|e| Error::InvalidArgument(format!("cannot start the remote-I/O runtime: {e}")))
}

/// Counters of one remote object, or of all of them ([`totals`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RemoteStats {
    /// `GET` requests sent (retries inside `object_store` not counted:
    /// the server's log counts those).
    pub requests: u64,
    /// Body bytes received.
    pub bytes: u64,
    /// Round trips: times a caller waited for the network (a read that
    /// missed, or an open), where fetches sent together count once even
    /// when waited for one after the other. For one thread, the round
    /// trips it paid; with several, an approximation.
    pub waits: u64,
}

#[derive(Debug, Default)]
struct Counters {
    requests: AtomicU64,
    bytes: AtomicU64,
    waits: AtomicU64,
}

impl Counters {
    fn get(&self) -> RemoteStats {
        RemoteStats {
            requests: self.requests.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
            waits: self.waits.load(Ordering::Relaxed),
        }
    }
}

/// Round trips so far in this process: a wait counts as a new round trip
/// when the fetch it waits for was sent after the last counted one ended
/// (fetches sent together, waited for one after the other, count once).
static EPOCH: AtomicU64 = AtomicU64::new(0);

static TOTALS: Counters = Counters {
    requests: AtomicU64::new(0),
    bytes: AtomicU64::new(0),
    waits: AtomicU64::new(0),
};

/// Counters summed over every remote object this process has read.
pub fn totals() -> RemoteStats {
    TOTALS.get()
}

fn count(c: &Counters, f: impl Fn(&Counters) -> &AtomicU64, n: u64) {
    f(c).fetch_add(n, Ordering::Relaxed);
    f(&TOTALS).fetch_add(n, Ordering::Relaxed);
}

/// A remote object's address: the store that holds it and its path there.
#[derive(Clone)]
pub struct Location {
    url: String,
    store: Arc<dyn ObjectStore>,
    path: ObjPath,
    /// The object's name: the last segment of the URL's path.
    name: String,
    opts: RemoteOptions,
}

impl std::fmt::Debug for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Location").field("url", &self.url).finish()
    }
}

impl Location {
    /// Parses `url` and builds a client for its store. Credentials, region
    /// and endpoint come from the environment as `object_store`'s
    /// builders read it (`AmazonS3Builder::from_env`: `AWS_ACCESS_KEY_ID`,
    /// `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`, `AWS_ENDPOINT_URL`,
    /// `AWS_ALLOW_HTTP`, ...; `GOOGLE_*` for `gs://`; `AZURE_*` for
    /// Azure). No request is sent.
    pub fn parse(url: &str, opts: &RemoteOptions) -> Result<Location> {
        let bad = |what: String| Error::Remote {
            url: url.to_string(),
            what,
        };
        let parsed = url::Url::parse(url).map_err(|e| bad(format!("not a valid URL: {e}")))?;
        let name = parsed
            .path_segments()
            .and_then(|mut s| s.next_back())
            .map(percent_decode)
            .unwrap_or_default();
        if name.is_empty() {
            return Err(bad("the URL names no object (its path is empty)".into()));
        }
        if parsed.query().is_some() && matches!(parsed.scheme(), "http" | "https") {
            // A URL with a query (a presigned S3, GCS or Azure URL, a
            // token): fetched as it is, by plain HTTP, the query kept.
            let store = http_store(&parsed, opts, url).map_err(|e| bad(one_line(&e)))?;
            return Ok(Location {
                url: url.to_string(),
                store,
                path: ObjPath::default(),
                name,
                opts: opts.clone(),
            });
        }
        let unreadable =
            |e: &dyn std::fmt::Display| bad(format!("not a URL lidx can read: {}", one_line(e)));
        let (scheme, path) = ObjectStoreScheme::parse(&parsed).map_err(|e| unreadable(&e))?;
        // Without Azure's store, an https:// URL of an Azure host is read
        // as any web server's (a public blob; a SAS token is a query, read
        // so in any build).
        #[cfg(not(feature = "azure"))]
        let (scheme, path) =
            if scheme == ObjectStoreScheme::MicrosoftAzure && parsed.scheme() == "https" {
                let path = ObjPath::from_url_path(parsed.path()).map_err(|e| unreadable(&e))?;
                (ObjectStoreScheme::Http, path)
            } else {
                (scheme, path)
            };
        if path.as_ref().is_empty() {
            return Err(bad("the URL names no object (its path is empty)".into()));
        }
        let store = store_for(scheme, &parsed, opts).map_err(|e| bad(words(&e)))?;
        Ok(Location {
            url: url.to_string(),
            store,
            path,
            name,
            opts: opts.clone(),
        })
    }

    /// The URL of the object's sidecar next to it: `.lidx` added to the
    /// path, the query (a presigned URL's, a token) kept.
    pub fn sidecar_url(&self) -> String {
        match self.url.split_once('?') {
            Some((path, query)) => format!("{path}.lidx?{query}"),
            None => format!("{}.lidx", self.url),
        }
    }

    /// The URL without its query: what names the object in the cache
    /// directory (a presigned URL's signature changes; the object does
    /// not).
    pub fn url_without_query(&self) -> &str {
        self.url.split_once('?').map_or(&self.url, |(p, _)| p)
    }

    /// The URL as given.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The object's name: the last segment of its path.
    pub fn file_name(&self) -> &str {
        &self.name
    }
}

/// The objects under `prefix_url` (`s3://bucket/logs/`, `gs://…`,
/// `az://…`), as (URL, size) in the order of their keys: a "directory" of
/// a bucket, listed recursively. An HTTP(S) server cannot be listed.
pub fn list(prefix_url: &str, opts: &RemoteOptions) -> Result<Vec<(String, u64)>> {
    let bad = |what: String| Error::Remote {
        url: prefix_url.to_string(),
        what,
    };
    let parsed = url::Url::parse(prefix_url).map_err(|e| bad(format!("not a valid URL: {e}")))?;
    let (scheme, path) = ObjectStoreScheme::parse(&parsed)
        .map_err(|e| bad(format!("not a URL lidx can read: {}", one_line(&e))))?;
    if matches!(scheme, ObjectStoreScheme::Http) {
        return Err(bad(
            "an HTTP(S) server cannot be listed: name each object's URL".into(),
        ));
    }
    let store = store_for(scheme, &parsed, opts).map_err(|e| bad(words(&e)))?;
    let base = format!("{}/", &parsed[..url::Position::BeforePath]);
    let prefix = (!path.as_ref().is_empty()).then_some(path);
    let listed: std::result::Result<Vec<_>, object_store::Error> = runtime()?.block_on(async {
        let mut out = Vec::new();
        let mut stream = store.list(prefix.as_ref());
        while let Some(meta) = stream.next().await {
            let meta = meta?;
            out.push((format!("{base}{}", meta.location), meta.size));
        }
        Ok(out)
    });
    let mut listed = listed.map_err(|e| bad(words(&e)))?;
    listed.sort();
    Ok(listed)
}

/// Writes `bytes` as the object at `url` in one `PUT`: readers see the
/// old object or the new one, never a part. Only for what a user asked to
/// upload explicitly (a sidecar next to its object); lidx reads remote
/// sources and never writes them.
pub fn put(url: &str, bytes: Vec<u8>, opts: &RemoteOptions) -> Result<()> {
    let loc = Location::parse(url, opts)?;
    let payload = object_store::PutPayload::from(Bytes::from(bytes));
    runtime()?
        .block_on(object_store::ObjectStoreExt::put(
            &loc.store, &loc.path, payload,
        ))
        .map(|_| ())
        .map_err(|e| Error::Remote {
            url: url.to_string(),
            what: words(&e),
        })
}

/// Makes ring's crypto the process's TLS provider, once, before any store
/// builds its HTTP client (lidx builds rustls without a provider of its
/// own choosing, see Cargo.toml).
fn tls_provider() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    // Err when the embedding program installed a provider first: kept.
    ONCE.call_once(|| drop(rustls::crypto::ring::default_provider().install_default()));
}

/// Client settings shared by every store: timeouts and retries; and the
/// TLS provider every store's client needs, installed on the way.
fn client_settings(opts: &RemoteOptions) -> (object_store::RetryConfig, [(ClientKey, String); 2]) {
    tls_provider();
    let retry = object_store::RetryConfig {
        backoff: object_store::BackoffConfig {
            init_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(2),
            base: 2.0,
        },
        max_retries: opts.retries,
        retry_timeout: opts.timeout * (opts.retries as u32 + 1) + Duration::from_secs(10),
    };
    let ms = format!("{}ms", opts.timeout.as_millis().max(1));
    (
        retry,
        [
            (ClientKey::Timeout, ms.clone()),
            (ClientKey::ConnectTimeout, ms),
        ],
    )
}

use object_store::ClientConfigKey as ClientKey;

/// A plain HTTP(S) store whose requests go to `base` (the server, or a
/// whole URL with its query) joined with the object's path.
fn http_store(
    url: &url::Url,
    opts: &RemoteOptions,
    base: &str,
) -> object_store::Result<Arc<dyn ObjectStore>> {
    let (retry, client) = client_settings(opts);
    let mut b = object_store::http::HttpBuilder::new()
        .with_url(base)
        .with_retry(retry)
        .with_config(ClientKey::AllowHttp, "true");
    for (k, v) in client {
        b = b.with_config(k, v);
    }
    if url.scheme() == "http" {
        // Loading the system's root certificates takes most of a short
        // query's time: skipped when nothing is TLS.
        b = b.with_config(ClientKey::NoSystemCertificates, "true");
    }
    Ok(Arc::new(b.build()?))
}

/// `%XX` escapes of a URL's path segment decoded (bytes that do not make
/// UTF-8 are replaced).
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%'
            && let (Some(h), Some(l)) = (
                b.get(i + 1).and_then(|&c| hex(c)),
                b.get(i + 2).and_then(|&c| hex(c)),
            )
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The error for a store this build leaves out (a cargo feature).
#[cfg(not(all(feature = "gcs", feature = "azure")))]
fn not_built(what: &str, feature: &str) -> object_store::Error {
    object_store::Error::NotSupported {
        source: format!(
            "{what} URLs need lidx built with the {feature} feature (cargo install --path cli \
             --features {feature}; for Python, MATURIN_PEP517_ARGS=\"--features {feature}\" \
             pip install ./python)"
        )
        .into(),
    }
}

/// Builds the store for a URL, with credentials from the environment.
fn store_for(
    scheme: ObjectStoreScheme,
    url: &url::Url,
    opts: &RemoteOptions,
) -> object_store::Result<Arc<dyn ObjectStore>> {
    let (retry, client) = client_settings(opts);
    // Loading the system's root certificates takes most of a short query's
    // time (parsing a few hundred PEM files): skipped when nothing is TLS.
    let plain = |endpoint: &str| {
        endpoint
            .get(..7)
            .is_some_and(|s| s.eq_ignore_ascii_case("http://"))
    };
    Ok(match scheme {
        ObjectStoreScheme::Http => http_store(url, opts, &url[..url::Position::BeforePath])?,
        ObjectStoreScheme::AmazonS3 => {
            use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey as K};
            let mut b = AmazonS3Builder::from_env()
                .with_url(url.as_str())
                .with_retry(retry);
            for (k, v) in client {
                b = b.with_config(K::Client(k), v);
            }
            // The AWS CLI's profile, under what the environment says.
            let profile = super::aws::profile().map_err(|e| object_store::Error::Generic {
                store: "S3",
                source: e.to_string().into(),
            })?;
            if let Some(p) = profile {
                let (no_key, no_endpoint) = (
                    b.get_config_value(&K::AccessKeyId).is_none(),
                    b.get_config_value(&K::Endpoint).is_none(),
                );
                if no_key && let (Some(id), Some(secret)) = (&p.access_key_id, &p.secret_access_key)
                {
                    b = b.with_access_key_id(id).with_secret_access_key(secret);
                    if let Some(t) = &p.session_token {
                        b = b.with_token(t);
                    }
                }
                if std::env::var_os("AWS_REGION").is_none()
                    && std::env::var_os("AWS_DEFAULT_REGION").is_none()
                    && let Some(r) = &p.region
                {
                    b = b.with_region(r);
                }
                if no_endpoint && let Some(e) = &p.endpoint_url {
                    b = b.with_endpoint(e);
                }
            }
            if b.get_config_value(&K::Endpoint).is_some_and(|e| plain(&e)) {
                // An endpoint given as http:// (MinIO, moto, a proxy) is
                // one the user chose: allowed, and no TLS set up.
                b = b
                    .with_allow_http(true)
                    .with_config(K::Client(ClientKey::NoSystemCertificates), "true");
            }
            Arc::new(b.build()?)
        }
        #[cfg(feature = "gcs")]
        ObjectStoreScheme::GoogleCloudStorage => {
            use object_store::gcp::{GoogleCloudStorageBuilder, GoogleConfigKey as K};
            let mut b = GoogleCloudStorageBuilder::from_env()
                .with_url(url.as_str())
                .with_retry(retry);
            for (k, v) in client {
                b = b.with_config(K::Client(k), v);
            }
            Arc::new(b.build()?)
        }
        #[cfg(feature = "azure")]
        ObjectStoreScheme::MicrosoftAzure => {
            use object_store::azure::{AzureConfigKey as K, MicrosoftAzureBuilder};
            let mut b = MicrosoftAzureBuilder::from_env()
                .with_url(url.as_str())
                .with_retry(retry);
            for (k, v) in client {
                b = b.with_config(K::Client(k), v);
            }
            Arc::new(b.build()?)
        }
        #[cfg(not(feature = "gcs"))]
        ObjectStoreScheme::GoogleCloudStorage => return Err(not_built("gs://", "gcs")),
        #[cfg(not(feature = "azure"))]
        ObjectStoreScheme::MicrosoftAzure => return Err(not_built("Azure", "azure")),
        other => {
            return Err(object_store::Error::NotSupported {
                source: format!("{other:?} URLs are not remote objects").into(),
            });
        }
    })
}

/// An error as one line (object_store's messages may hold a server's reply
/// body over several lines), cut to a readable length.
fn one_line(e: &dyn std::fmt::Display) -> String {
    let s = e.to_string();
    let mut out = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if out.len() > 300 {
        let mut cut = 300;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
        out.push_str(" ...");
    }
    out
}

/// What identifies one version of a remote object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// Size in bytes.
    pub size: u64,
    /// The ETag, as the server sent it (quotes included), if any.
    pub etag: Option<String>,
    /// Last-Modified, in seconds since the epoch.
    pub last_modified: i64,
}

impl Identity {
    fn of(meta: &object_store::ObjectMeta) -> Identity {
        Identity {
            size: meta.size,
            etag: meta.e_tag.clone(),
            last_modified: meta.last_modified.timestamp(),
        }
    }

    /// The same version: same size, and the same ETag when both have one
    /// (else the same Last-Modified).
    fn same(&self, other: &Identity) -> bool {
        self.size == other.size
            && match (&self.etag, &other.etag) {
                (Some(a), Some(b)) => a == b,
                _ => self.last_modified == other.last_modified,
            }
    }

    /// The value for `If-Match`: a strong ETag (a weak one never matches
    /// under the strong comparison `If-Match` uses).
    fn if_match(&self) -> Option<String> {
        self.etag.clone().filter(|e| !e.starts_with("W/"))
    }
}

/// How a request failed.
#[derive(Debug, Clone)]
enum Fault {
    /// The object is not the version first read.
    Changed(String),
    /// Worth asking again (a short body, a wrong range).
    Retry(String),
    /// Final.
    Fatal(String),
}

impl Fault {
    fn into_error(self, url: &str) -> Error {
        match self {
            Fault::Changed(what) => Error::SourceChanged {
                path: PathBuf::from(url),
                what,
            },
            Fault::Retry(what) | Fault::Fatal(what) => Error::Remote {
                url: url.to_string(),
                what,
            },
        }
    }
}

/// Classifies an `object_store` error.
fn fault_of(e: object_store::Error) -> Fault {
    use object_store::Error as E;
    match &e {
        E::NotFound { .. } => Fault::Fatal("not found (HTTP 404)".into()),
        E::Precondition { .. } => Fault::Changed(
            "the object was replaced while lidx read it (its ETag no longer matches: HTTP 412)"
                .into(),
        ),
        E::PermissionDenied { .. } | E::Unauthenticated { .. } => Fault::Fatal(format!(
            "access refused ({}): check the credentials and what they may read",
            words(&e)
        )),
        E::NotSupported { .. } => Fault::Fatal(
            "the server ignored the Range request (it answered with the whole object, not 206 \
             Partial Content); lidx needs range reads"
                .into(),
        ),
        _ => {
            let text = one_line(&with_causes(&e));
            if text.contains("non-partial response") {
                Fault::Fatal(
                    "the server ignored the Range request (it answered 200 with the whole \
                     object, not 206 Partial Content); lidx needs range reads"
                        .into(),
                )
            } else if text.contains("Requested") && text.contains("got") {
                Fault::Retry(format!(
                    "the reply's Content-Range is not the range asked: {text}"
                ))
            } else if text.contains("Content-Range") || text.contains("CONTENT_RANGE") {
                Fault::Retry(format!(
                    "the reply's Content-Range is missing or invalid: {text}"
                ))
            } else {
                Fault::Fatal(plain_words(&text))
            }
        }
    }
}

/// An error, its causes included, in plain words on one line: what every
/// failed request says (a listing, an upload, a client's set-up, a read).
fn words(e: &(dyn std::error::Error + 'static)) -> String {
    plain_words(&one_line(&with_causes(e)))
}

/// An error's text followed by its causes' (each once): the client's
/// top-level words ("error sending request") hide what happened (a
/// certificate refused, a connection reset).
fn with_causes(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let more = c.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        cause = c.source();
    }
    text
}

/// What an `object_store` error means, in one line without the client's
/// internals (the request, retry counts, a server's HTML error page), and
/// what to set when the cause is a setting.
fn plain_words(text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    // Without keys, the S3 client asks the instance metadata service (on
    // EC2, a role's keys): elsewhere that fails one way or another.
    if lower.contains("169.254.169.254") || lower.contains("instance metadata") {
        return "no AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or \
                AWS_PROFILE (a profile in ~/.aws/credentials), or AWS_SKIP_SIGNATURE=true for a \
                public bucket"
            .into();
    }
    if let Some(at) = text.find("status code: ") {
        let rest = &text[at + "status code: ".len()..];
        let status = rest.split(':').next().unwrap_or(rest).trim();
        return format!("HTTP {status}");
    }
    if lower.contains("url scheme is not allowed") {
        return "http:// is not allowed for this store: set AWS_ALLOW_HTTP=true (or an \
                https:// endpoint)"
            .into();
    }
    if lower.contains("connection refused") {
        return "connection refused (is the server running, on that port?)".into();
    }
    if lower.contains("dns error") || lower.contains("failed to lookup address") {
        return "the host name does not resolve".into();
    }
    if lower.contains("certificate") {
        return "the server's TLS certificate is not trusted (SSL_CERT_FILE or SSL_CERT_DIR can \
                name the CA that signed it)"
            .into();
    }
    // ("retry_timeout" is a setting object_store prints with every
    // error it gave up on, not a timeout.)
    if lower.contains("timed out") || lower.replace("retry_timeout", "").contains("timeout") {
        return "no reply in time (LIDX_TIMEOUT sets the seconds, LIDX_RETRIES the retries)".into();
    }
    // object_store's "Generic X error: Error performing GET … - cause".
    let core = text.rsplit(" - ").next().unwrap_or(text);
    let core = match core.find(" error: ") {
        Some(i) if core.starts_with("Generic ") => &core[i + " error: ".len()..],
        _ => core,
    };
    let core = core
        .strip_prefix("Operation not supported: ")
        .unwrap_or(core);
    one_line(&core)
}

/// One contiguous range of the object, as fetched.
#[derive(Debug)]
struct Extent {
    start: u64,
    data: Bytes,
}

impl Extent {
    fn end(&self) -> u64 {
        self.start + self.data.len() as u64
    }
}

/// A fetch in flight; its result is handed to every reader that waits.
#[derive(Debug)]
struct Fetch {
    range: Range<u64>,
    /// [`EPOCH`] when it was sent.
    epoch: u64,
    result: Mutex<Option<std::result::Result<Arc<Extent>, Fault>>>,
    cond: Condvar,
}

impl Fetch {
    fn wait(&self) -> std::result::Result<Arc<Extent>, Fault> {
        let mut g = self.result.lock();
        while g.is_none() {
            self.cond.wait(&mut g);
        }
        g.clone().expect("checked above")
    }

    fn is_done(&self) -> bool {
        self.result.lock().is_some()
    }
}

/// A sequential reader: where its last read ended and its window.
#[derive(Debug, Clone, Copy, Default)]
struct Stream {
    end: u64,
    window: u64,
}

/// Streams followed at once (a scan's workers each have one).
const STREAMS: usize = 8;

#[derive(Debug, Default)]
struct State {
    /// Fetched ranges by start; never overlapping one another nor a fetch
    /// in flight.
    extents: BTreeMap<u64, Arc<Extent>>,
    /// Insertion order, for eviction.
    order: std::collections::VecDeque<u64>,
    bytes: usize,
    inflight: BTreeMap<u64, Arc<Fetch>>,
    inflight_bytes: u64,
    streams: [Stream; STREAMS],
    next_stream: usize,
}

impl State {
    /// The fetched range holding `off`.
    fn extent_at(&self, off: u64) -> Option<&Arc<Extent>> {
        self.extents
            .range(..=off)
            .next_back()
            .map(|(_, e)| e)
            .filter(|e| e.end() > off)
    }

    /// The fetch in flight covering `off`.
    fn inflight_at(&self, off: u64) -> Option<&Arc<Fetch>> {
        self.inflight
            .range(..=off)
            .next_back()
            .map(|(_, f)| f)
            .filter(|f| f.range.end > off)
    }

    /// The end of whatever is fetched or being fetched before `off`
    /// (0 if nothing).
    fn covered_before(&self, off: u64) -> u64 {
        let a = self
            .extents
            .range(..off)
            .next_back()
            .map_or(0, |(_, e)| e.end());
        let b = self
            .inflight
            .range(..off)
            .next_back()
            .map_or(0, |(_, f)| f.range.end);
        a.max(b)
    }

    /// The start of the first fetched or in-flight range after `off`.
    fn next_after(&self, off: u64, len: u64) -> u64 {
        let a = self
            .extents
            .range(off + 1..)
            .next()
            .map_or(len, |(s, _)| *s);
        let b = self
            .inflight
            .range(off + 1..)
            .next()
            .map_or(len, |(s, _)| *s);
        a.min(b)
    }

    /// The widest uncovered range around `want` (block-aligned, at most
    /// [`MAX_FETCH`]), for a read at `want.start` that nothing covers.
    fn gap(&self, want: Range<u64>, len: u64) -> Range<u64> {
        let off = want.start;
        let start = (off - off % BLOCK).max(self.covered_before(off));
        let end = want
            .end
            .div_ceil(BLOCK)
            .saturating_mul(BLOCK)
            .min(len)
            .min(self.next_after(off, len))
            .min(start + MAX_FETCH)
            .max(off + 1);
        start..end
    }

    /// Records a read of `off..end` for sequential detection; returns the
    /// stream's window if the read continues a stream.
    fn follow(&mut self, off: u64, end: u64) -> Option<u64> {
        if let Some(s) = self.streams.iter_mut().find(|s| s.end == off && off > 0) {
            s.end = end;
            return Some(s.window);
        }
        let i = self.next_stream;
        self.next_stream = (i + 1) % STREAMS;
        self.streams[i] = Stream { end, window: 0 };
        None
    }

    /// Doubles the window of the stream now ending at `end`.
    fn grow(&mut self, end: u64) -> u64 {
        let s = self
            .streams
            .iter_mut()
            .find(|s| s.end == end)
            .expect("followed before");
        s.window = (s.window * 2).clamp(SEQ_FIRST, MAX_FETCH);
        s.window
    }

    fn insert(&mut self, e: Arc<Extent>, budget: usize) {
        self.bytes += e.data.len();
        self.order.push_back(e.start);
        self.extents.insert(e.start, e);
        while self.bytes > budget && self.order.len() > 1 {
            let old = self.order.pop_front().expect("len > 1");
            if let Some(x) = self.extents.remove(&old) {
                self.bytes -= x.data.len();
            }
        }
    }
}

struct Inner {
    loc: Location,
    len: u64,
    ident: Identity,
    if_match: Option<String>,
    path: PathBuf,
    state: Mutex<State>,
    stats: Counters,
}

/// A remote object as a [`ReadAt`]. Cheap to clone (one shared state).
#[derive(Clone)]
pub struct RemoteSource {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for RemoteSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteSource")
            .field("url", &self.inner.loc.url)
            .field("len", &self.inner.len)
            .finish()
    }
}

/// What the first request of an object fetches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum First {
    /// The first `n` bytes.
    Head(u64),
    /// The last `n` bytes.
    Tail(u64),
}

/// Result of one ranged `GET`: the object's identity and the body.
async fn get(
    loc: &Location,
    range: GetRange,
    if_match: Option<String>,
    stats: &Counters,
) -> std::result::Result<(Identity, Range<u64>, Bytes), Fault> {
    let opts = GetOptions {
        range: Some(range),
        if_match,
        ..Default::default()
    };
    let r = loc
        .store
        .get_opts(&loc.path, opts)
        .await
        .map_err(fault_of)?;
    let ident = Identity::of(&r.meta);
    let want = r.range.clone();
    let expect = (want.end - want.start) as usize;
    let mut body = bytes::BytesMut::with_capacity(expect.min(MAX_FETCH as usize));
    let mut stream = r.into_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| {
            Fault::Retry(format!(
                "the reply broke off after {} of {expect} bytes: {}",
                body.len(),
                one_line(&e)
            ))
        })?;
        count(stats, |c| &c.bytes, chunk.len() as u64);
        if body.len() + chunk.len() > expect {
            return Err(Fault::Retry(format!(
                "the reply holds more than the {expect} bytes of its Content-Range"
            )));
        }
        body.extend_from_slice(&chunk);
    }
    if body.len() != expect {
        return Err(Fault::Retry(format!(
            "the reply holds {} bytes where its Content-Range promises {expect} (truncated body)",
            body.len()
        )));
    }
    Ok((ident, want, body.freeze()))
}

/// [`get`] with the bounded retries of this layer (short bodies, wrong
/// ranges); `object_store` has already retried server errors and timeouts.
/// The caller counts the first request, when it starts the fetch (so that
/// a fetch started before the counters are printed is in them even if its
/// task has not run yet); each retry is counted here.
async fn get_retried(
    loc: &Location,
    range: GetRange,
    if_match: Option<String>,
    stats: &Counters,
) -> std::result::Result<(Identity, Range<u64>, Bytes), Fault> {
    let mut attempt = 0;
    loop {
        if attempt > 0 {
            count(stats, |c| &c.requests, 1);
        }
        match get(loc, range.clone(), if_match.clone(), stats).await {
            Err(Fault::Retry(_)) if attempt < loc.opts.retries => {
                attempt += 1;
                tokio::time::sleep(Duration::from_millis(50 << attempt.min(5))).await;
            }
            Err(Fault::Retry(m)) => {
                return Err(Fault::Fatal(format!(
                    "{m} (after {} tries)",
                    loc.opts.retries + 1
                )));
            }
            other => return other,
        }
    }
}

/// Opens an empty object (a ranged request on it has nothing to return).
async fn head(loc: &Location, stats: &Counters) -> std::result::Result<Identity, Fault> {
    count(stats, |c| &c.requests, 1);
    let opts = GetOptions {
        head: true,
        ..Default::default()
    };
    let r = loc
        .store
        .get_opts(&loc.path, opts)
        .await
        .map_err(fault_of)?;
    Ok(Identity::of(&r.meta))
}

type Opened = std::result::Result<(Identity, Vec<(u64, Bytes)>), Fault>;

/// The first requests of one object, sent together.
async fn first(loc: &Location, first: &[First], stats: &Counters) -> Opened {
    count(stats, |c| &c.requests, first.len() as u64);
    let gets = first.iter().map(|f| {
        let range = match *f {
            First::Head(n) => GetRange::Bounded(0..n.max(1)),
            First::Tail(n) => GetRange::Suffix(n.max(1)),
        };
        get_retried(loc, range, None, stats)
    });
    let results = futures_util::future::join_all(gets).await;
    let mut ident: Option<Identity> = None;
    let mut parts = Vec::new();
    for r in results {
        let (id, range, body) = match r {
            Ok(x) => x,
            // A range of an empty object cannot be satisfied: servers
            // answer 416, or 200 with no body (nginx). Ask what the object
            // is; only an empty one is not an error.
            Err(Fault::Fatal(m)) if m.contains("ignored the Range") || m.contains("416") => {
                return match head(loc, stats).await {
                    Ok(id) if id.size == 0 => Ok((id, Vec::new())),
                    _ => Err(Fault::Fatal(m)),
                };
            }
            Err(e) => return Err(e),
        };
        if let Some(i) = &ident
            && !i.same(&id)
        {
            return Err(Fault::Changed(
                "the object changed between two of lidx's first requests (another size or ETag)"
                    .into(),
            ));
        }
        ident = Some(id);
        parts.push((range.start, body));
    }
    Ok((ident.expect("at least one request"), parts))
}

impl RemoteSource {
    /// Opens the object at `loc`, fetching `first` (together, in one round
    /// trip); the replies give its size and identity.
    pub fn open(loc: &Location, first: &[First]) -> Result<RemoteSource> {
        RemoteSource::open_all(&[(loc, first)])
            .pop()
            .expect("one result per object")
    }

    /// Opens several objects at once: every object's first requests are
    /// sent together and waited for as one round trip.
    pub fn open_all(objects: &[(&Location, &[First])]) -> Vec<Result<RemoteSource>> {
        let rt = match runtime() {
            Ok(rt) => rt,
            Err(e) => {
                let msg = e.to_string();
                return objects
                    .iter()
                    .map(|_| Err(Error::InvalidArgument(msg.clone())))
                    .collect();
            }
        };
        let stats: Vec<Counters> = objects.iter().map(|_| Counters::default()).collect();
        let results: Vec<Opened> = rt.block_on(async {
            let all = objects.iter().zip(&stats).map(|((loc, f), s)| {
                first(
                    loc,
                    if f.is_empty() {
                        &[First::Head(BLOCK)]
                    } else {
                        f
                    },
                    s,
                )
            });
            futures_util::future::join_all(all).await
        });
        TOTALS.waits.fetch_add(1, Ordering::Relaxed);
        EPOCH.fetch_add(1, Ordering::Relaxed);
        results
            .into_iter()
            .zip(objects)
            .zip(stats)
            .map(|((r, (loc, _)), stats)| {
                let (ident, parts) = r.map_err(|f| f.into_error(&loc.url))?;
                stats.waits.store(1, Ordering::Relaxed);
                let mut state = State::default();
                // Disjoint extents: a head and a tail of a small object
                // overlap; keep what the head does not hold.
                let mut parts = parts;
                parts.sort_by_key(|p| p.0);
                let mut covered = 0u64;
                for (start, data) in parts {
                    let end = start + data.len() as u64;
                    if end <= covered {
                        continue;
                    }
                    let skip = covered.saturating_sub(start) as usize;
                    let e = Extent {
                        start: start.max(covered),
                        data: data.slice(skip..),
                    };
                    covered = end;
                    state.insert(Arc::new(e), loc.opts.cache_bytes);
                }
                Ok(RemoteSource {
                    inner: Arc::new(Inner {
                        len: ident.size,
                        if_match: ident.if_match(),
                        ident,
                        path: PathBuf::from(&loc.url),
                        loc: (*loc).clone(),
                        state: Mutex::new(state),
                        stats,
                    }),
                })
            })
            .collect()
    }

    /// The object's identity as first read.
    pub fn identity(&self) -> &Identity {
        &self.inner.ident
    }

    /// The URL.
    pub fn url(&self) -> &str {
        &self.inner.loc.url
    }

    /// This object's counters.
    pub fn stats(&self) -> RemoteStats {
        self.inner.stats.get()
    }

    /// Starts fetching `range` on the runtime; the caller waits on the
    /// returned fetch (or not, for a hint). Called with the state locked.
    fn start(&self, st: &mut State, range: Range<u64>) -> Arc<Fetch> {
        let fetch = Arc::new(Fetch {
            range: range.clone(),
            epoch: EPOCH.load(Ordering::Relaxed),
            result: Mutex::new(None),
            cond: Condvar::new(),
        });
        st.inflight.insert(range.start, Arc::clone(&fetch));
        st.inflight_bytes += range.end - range.start;
        let me = self.clone();
        let f = Arc::clone(&fetch);
        let rt = runtime().expect("running: a source exists only after the runtime started");
        count(&self.inner.stats, |c| &c.requests, 1);
        rt.spawn(async move {
            let inner = &me.inner;
            let got = get_retried(
                &inner.loc,
                GetRange::Bounded(f.range.clone()),
                inner.if_match.clone(),
                &inner.stats,
            )
            .await;
            let result = match got {
                Ok((id, _, _)) if !inner.ident.same(&id) => Err(Fault::Changed(format!(
                    "the object was replaced while lidx read it (size {} and ETag {} at first, \
                     now {} and {})",
                    inner.ident.size,
                    inner.ident.etag.as_deref().unwrap_or("none"),
                    id.size,
                    id.etag.as_deref().unwrap_or("none"),
                ))),
                Ok((_, r, _)) if r != f.range => Err(Fault::Fatal(format!(
                    "asked for bytes {}..{}, got {}..{}",
                    f.range.start, f.range.end, r.start, r.end
                ))),
                Ok((_, _, body)) => Ok(Arc::new(Extent {
                    start: f.range.start,
                    data: body,
                })),
                Err(e) => Err(e),
            };
            {
                let mut st = inner.state.lock();
                st.inflight.remove(&f.range.start);
                st.inflight_bytes -= f.range.end - f.range.start;
                if let Ok(e) = &result {
                    st.insert(Arc::clone(e), inner.loc.opts.cache_bytes);
                }
            }
            *f.result.lock() = Some(result);
            f.cond.notify_all();
        });
        fetch
    }

    /// Starts fetches for the parts of `range` not fetched or in flight,
    /// within the in-flight budget (half the cache). Never waits.
    fn hint(&self, st: &mut State, range: Range<u64>) {
        let len = self.inner.len;
        let budget = (self.inner.loc.opts.cache_bytes / 2) as u64;
        self.fetch_gaps(st, range, |st, at, end| {
            let gap = st.gap(at..end, len);
            (st.inflight_bytes + (gap.end - gap.start) <= budget.max(MAX_FETCH)).then_some(gap)
        });
    }

    /// Walks the parts of `range` neither fetched nor in flight, in order,
    /// and starts the fetch `piece(st, at, end)` gives for the one at `at`
    /// (whose end it may move); `None` from it stops.
    fn fetch_gaps(
        &self,
        st: &mut State,
        range: Range<u64>,
        piece: impl Fn(&State, u64, u64) -> Option<Range<u64>>,
    ) {
        let end = range.end.min(self.inner.len);
        let mut at = range.start;
        while at < end {
            if let Some(e) = st.extent_at(at) {
                at = e.end();
                continue;
            }
            if let Some(f) = st.inflight_at(at) {
                at = f.range.end;
                continue;
            }
            let Some(gap) = piece(st, at, end) else {
                return;
            };
            at = gap.end;
            self.start(st, gap);
        }
    }

    fn copy(&self, e: &Extent, buf: &mut [u8], off: u64) -> usize {
        let at = (off - e.start) as usize;
        let n = buf.len().min(e.data.len() - at);
        buf[..n].copy_from_slice(&e.data[at..at + n]);
        n
    }
}

impl ReadAt for RemoteSource {
    fn len(&self) -> u64 {
        self.inner.len
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> Result<usize> {
        let len = self.inner.len;
        if offset >= len || buf.is_empty() {
            return Ok(0);
        }
        let want = (buf.len() as u64).min(len - offset);
        loop {
            let fetch = {
                let mut st = self.inner.state.lock();
                if let Some(e) = st.extent_at(offset).cloned() {
                    let n = self.copy(&e, buf, offset);
                    st.follow(offset, offset + n as u64);
                    return Ok(n);
                }
                match st.inflight_at(offset).cloned() {
                    Some(f) => f,
                    None => {
                        let seq = st.follow(offset, offset);
                        let mut end = offset + want;
                        if seq.is_some() {
                            end = end.max(offset + st.grow(offset));
                        }
                        let gap = st.gap(offset..end.min(len), len);
                        let f = self.start(&mut st, gap.clone());
                        if seq.is_some() {
                            // Read ahead: the next window, while this one
                            // is consumed.
                            let w = gap.end - gap.start;
                            self.hint(&mut st, gap.end..gap.end.saturating_add(w));
                        }
                        f
                    }
                }
            };
            let new_trip = !fetch.is_done() && fetch.epoch >= EPOCH.load(Ordering::Relaxed);
            let got = fetch.wait();
            if new_trip {
                count(&self.inner.stats, |c| &c.waits, 1);
                EPOCH.fetch_add(1, Ordering::Relaxed);
            }
            match got {
                Ok(e) if e.start <= offset && e.end() > offset => {
                    let n = self.copy(&e, buf, offset);
                    self.inner.state.lock().follow(offset, offset + n as u64);
                    return Ok(n);
                }
                Ok(_) => continue,
                Err(f) => return Err(f.into_error(&self.inner.loc.url)),
            }
        }
    }

    fn path(&self) -> &Path {
        &self.inner.path
    }

    fn will_need(&self, range: Range<u64>) {
        if range.start >= range.end {
            return;
        }
        let mut st = self.inner.state.lock();
        self.hint(&mut st, range);
    }

    fn will_need_exact(&self, range: Range<u64>) {
        let len = self.inner.len;
        let mut st = self.inner.state.lock();
        // Exactly the bytes asked for, not the blocks around them.
        self.fetch_gaps(&mut st, range, |st, at, end| {
            Some(at..end.min(st.next_after(at, len)))
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_paths() {
        for u in [
            "http://h/x",
            "https://h:8080/a/b.gz",
            "s3://bucket/key",
            "S3://bucket/key",
            "gs://b/k",
            "az://c/k",
            "abfss://c@a.dfs.core.windows.net/k",
        ] {
            assert!(is_url(Path::new(u)), "{u}");
        }
        for p in [
            "app.log",
            "/var/log/x",
            "./http://x",
            "file:///x",
            "http://",
            "ftp://h/x",
            "c:/x",
        ] {
            assert!(!is_url(Path::new(p)), "{p}");
        }
    }

    /// Without Azure's store, an `https://` URL of an Azure host is a web
    /// server's object (its whole path, the container in it); `az://`
    /// names the feature it needs.
    #[test]
    #[cfg(not(feature = "azure"))]
    fn azure_hosts_without_the_azure_feature() {
        let o = RemoteOptions::default();
        let l = Location::parse("https://acct.blob.core.windows.net/logs/app.log", &o).unwrap();
        assert_eq!(
            (l.path.as_ref(), l.file_name()),
            ("logs/app.log", "app.log")
        );
        let e = Location::parse("az://logs/app.log", &o)
            .unwrap_err()
            .to_string();
        assert!(e.contains("built with the azure feature"), "{e}");
    }

    #[test]
    fn errors_in_plain_words() {
        for (text, want) in [
            (
                "Generic HTTP error: Error performing GET http://h/x in 1ms, after 0 retries, \
                 max_retries: 3, retry_timeout: 130s - Server returned non-2xx status code: 416 \
                 Range Not Satisfiable: <html> <head><title>416 Requested Range Not Satisfiable",
                "HTTP 416 Range Not Satisfiable",
            ),
            (
                "Generic HTTP error: Error performing GET http://127.0.0.1:1/x in 2ms, after 3 \
                 retries - HTTP error: error sending request - tcp connect error - Connection \
                 refused (os error 111)",
                "connection refused (is the server running, on that port?)",
            ),
            (
                "Generic S3 error: Error performing GET http://169.254.169.254/latest/api/token \
                 in 1s - HTTP error: error sending request",
                "no AWS credentials found",
            ),
            (
                "Generic S3 error: AWS_PROFILE=x: no profile [x]",
                "AWS_PROFILE=x: no profile [x]",
            ),
        ] {
            assert!(
                plain_words(text).starts_with(want),
                "{text} -> {}",
                plain_words(text)
            );
        }
    }

    #[test]
    fn one_line_messages() {
        assert_eq!(one_line(&"a\n  b\tc"), "a b c");
        let long = "x".repeat(1000);
        assert!(one_line(&long).len() < 320);
    }

    #[test]
    fn gaps_are_aligned_and_disjoint() {
        let mut st = State::default();
        let len = 10 * BLOCK + 5;
        assert_eq!(st.gap(100..200, len), 0..BLOCK);
        assert_eq!(st.gap(BLOCK + 3..3 * BLOCK + 1, len), BLOCK..4 * BLOCK);
        assert_eq!(st.gap(10 * BLOCK..len, len), 10 * BLOCK..len);
        st.insert(
            Arc::new(Extent {
                start: 2 * BLOCK,
                data: Bytes::from(vec![0u8; BLOCK as usize]),
            }),
            1 << 30,
        );
        // Stops before what is cached, starts after it.
        assert_eq!(st.gap(BLOCK..4 * BLOCK, len), BLOCK..2 * BLOCK);
        assert_eq!(
            st.gap(3 * BLOCK + 7..3 * BLOCK + 9, len),
            3 * BLOCK..4 * BLOCK
        );
        assert_eq!(st.extent_at(2 * BLOCK + 1).unwrap().start, 2 * BLOCK);
        assert!(st.extent_at(3 * BLOCK).is_none());
    }

    #[test]
    fn eviction_keeps_the_budget() {
        let mut st = State::default();
        for i in 0..10u64 {
            st.insert(
                Arc::new(Extent {
                    start: i * BLOCK,
                    data: Bytes::from(vec![0u8; BLOCK as usize]),
                }),
                (3 * BLOCK) as usize,
            );
        }
        assert_eq!(st.bytes, (3 * BLOCK) as usize);
        assert!(st.extent_at(0).is_none());
        assert!(st.extent_at(9 * BLOCK).is_some());
    }
}
