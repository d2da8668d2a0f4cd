//! gzip sources: member parsing and resumable decoding.
//!
//! [`inflate::Inflater`] decodes a gzip file (any number of members, as
//! `cat a.gz b.gz`, pigz and bgzip produce) and reports deflate block
//! boundaries where decoding can later resume from a compressed bit offset
//! and a 32 KiB window ([`inflate::AccessPoint`]). The sidecar format for
//! gzip sources and the query path build on this (issue 4); this module does
//! no indexing itself.

pub mod header;
pub mod inflate;

pub use inflate::{AccessPoint, Event, Inflater};
