//! The RANGE syntax of `lidx lines`: `N`, `A:B`, `A:`, `:B`, `A:+K`
//! (1-based, inclusive), converted to the library's 0-based half-open form.

use std::ops::Range;

/// Parses one RANGE argument into 0-based half-open line numbers.
pub fn parse(s: &str) -> Result<Range<u64>, String> {
    let bad = |why: &str| Err(format!("invalid range {s:?}: {why}"));
    let num = |t: &str| -> Result<u64, String> {
        if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!(
                "invalid range {s:?}: {t:?} is not a line number (use N, A:B, A:, :B or A:+K)"
            ));
        }
        let n: u64 = t
            .parse()
            .map_err(|_| format!("invalid range {s:?}: {t} is too large"))?;
        if n == 0 {
            return Err(format!("invalid range {s:?}: line numbers start at 1"));
        }
        Ok(n)
    };
    match s.split_once(':') {
        None => {
            let n = num(s)?;
            Ok(n - 1..n)
        }
        Some(("", "")) => bad("give at least one end (A:, :B or A:B)"),
        Some((a, "")) => Ok(num(a)? - 1..u64::MAX),
        Some(("", b)) => Ok(0..num(b)?),
        Some((a, b)) => {
            let a = num(a)?;
            if let Some(k) = b.strip_prefix('+') {
                if k == "0" || k.bytes().all(|c| c == b'0') && !k.is_empty() {
                    return bad("+0 selects no lines");
                }
                let k = num(k)?;
                Ok(a - 1..(a - 1).saturating_add(k))
            } else {
                let b = num(b)?;
                if b < a {
                    return bad("the end is before the start");
                }
                Ok(a - 1..b)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn accepted() {
        assert_eq!(parse("5"), Ok(4..5));
        assert_eq!(parse("2:4"), Ok(1..4));
        assert_eq!(parse("3:3"), Ok(2..3));
        assert_eq!(parse("7:"), Ok(6..u64::MAX));
        assert_eq!(parse(":3"), Ok(0..3));
        assert_eq!(parse("10:+5"), Ok(9..14));
        assert_eq!(parse("18446744073709551615"), Ok(u64::MAX - 1..u64::MAX));
        assert_eq!(parse("2:+18446744073709551615"), Ok(1..u64::MAX));
    }

    #[test]
    fn rejected() {
        for s in [
            "",
            "0",
            "-1",
            "5:3",
            "1:+0",
            ":",
            "a",
            "1:b",
            "1::2",
            "18446744073709551616",
            "+3",
            "1:+",
            " 1",
            "0:5",
            "1:0",
        ] {
            assert!(parse(s).is_err(), "{s:?} accepted");
        }
    }
}
