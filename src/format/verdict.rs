//! The verdict on a source against its sidecar (spec §6.2, R-41): a
//! plain enum, below both the errors that carry it and the fingerprint
//! code that reaches it.

/// How the source relates to the sidecar built for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The sidecar describes the source as it is (`Evidence` says how
    /// that is known).
    Unchanged,
    /// Longer than when indexed, and the indexed prefix's head and last
    /// block are unchanged: the file only grew.
    Appended,
    /// Anything else: shorter, a changed head or tail, or content that
    /// differs from what the sidecar recorded.
    Rewritten,
    /// Same size, head and tail as recorded but another modification time,
    /// and a plain file whose content has not been checked yet: opening
    /// re-reads it once to decide (`lidx verify --full` does it too).
    Unverified,
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Verdict::Unchanged => "unchanged",
            Verdict::Appended => "appended to",
            Verdict::Rewritten => "rewritten",
            Verdict::Unverified => "unverified (its modification time differs)",
        })
    }
}
