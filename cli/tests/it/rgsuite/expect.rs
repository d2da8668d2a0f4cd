//! The stored expectations: ripgrep's output for every case, kept in
//! `tests/rg/expected.txt` so the suite needs no ripgrep to have an oracle.
//!
//! The file is text, one record per case, in table order:
//!
//! ```text
//! case regression::r1163
//! args '^test123'
//! key 5f3c09a1
//! exit 0
//! out test123\n
//! out test123\n
//! err ...
//! ```
//!
//! `args` is for the reader (shell-quoted); `key` is a CRC-32 of the
//! arguments and the haystack, so a case edited without regenerating is
//! reported as stale instead of compared with an old answer. `out`/`err`
//! lines hold stdout/stderr [`escape`]d, cut after each `\n`.

use std::collections::BTreeMap;

/// What ripgrep printed for one case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub key: u32,
    pub code: i32,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

/// The fingerprint that ties a record to a case's arguments and haystack.
pub fn key(args: &[&str], hay: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    for a in args {
        h.update(a.as_bytes());
        h.update(&[0]);
    }
    h.update(&[0xff]);
    h.update(hay);
    h.finalize()
}

/// Bytes as readable text: printable ASCII and alphanumeric characters as
/// themselves; `\n`, `\r`, `\t`, `\\` escaped; other bytes as `\xHH`,
/// other characters (a BOM, ☃, a non-breaking space) as `\u{HHHH}`; a final
/// space as `\x20`. [`unescape`] reverses it.
pub fn escape(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\\' => s.push_str("\\\\"),
                '\n' => s.push_str("\\n"),
                '\r' => s.push_str("\\r"),
                '\t' => s.push_str("\\t"),
                ' '..='~' => s.push(c),
                c if c.is_ascii() => s.push_str(&format!("\\x{:02x}", c as u32)),
                c if c.is_alphanumeric() => s.push(c),
                c => s.push_str(&format!("\\u{{{:x}}}", c as u32)),
            }
        }
        for b in chunk.invalid() {
            s.push_str(&format!("\\x{b:02x}"));
        }
    }
    if s.ends_with(' ') {
        s.pop();
        s.push_str("\\x20");
    }
    s
}

/// The bytes [`escape`] wrote.
pub fn unescape(s: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(s.len());
    let mut it = s.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        if c != '\\' {
            let mut buf = [0; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            continue;
        }
        let bad = || format!("bad escape at byte {i} of {s:?}");
        match it.next().map(|(_, c)| c) {
            Some('\\') => out.push(b'\\'),
            Some('n') => out.push(b'\n'),
            Some('r') => out.push(b'\r'),
            Some('t') => out.push(b'\t'),
            Some('x') => {
                let hex: String = (0..2).filter_map(|_| it.next().map(|(_, c)| c)).collect();
                out.push(u8::from_str_radix(&hex, 16).map_err(|_| bad())?);
            }
            Some('u') => {
                if it.next().map(|(_, c)| c) != Some('{') {
                    return Err(bad());
                }
                let mut hex = String::new();
                loop {
                    match it.next().map(|(_, c)| c) {
                        Some('}') => break,
                        Some(h) => hex.push(h),
                        None => return Err(bad()),
                    }
                }
                let v = u32::from_str_radix(&hex, 16).map_err(|_| bad())?;
                let c = char::from_u32(v).ok_or_else(bad)?;
                let mut buf = [0; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
            _ => return Err(bad()),
        }
    }
    Ok(out)
}

/// One argument as a shell would take it back.
pub fn quote(a: &str) -> String {
    if !a.is_empty()
        && a.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_./:=+-,@%^".contains(&b))
    {
        return a.to_string();
    }
    if a.chars().all(|c| !c.is_control()) {
        return format!("'{}'", a.replace('\'', r"'\''"));
    }
    let mut s = String::from("$'");
    for c in a.chars() {
        match c {
            '\n' => s.push_str("\\n"),
            '\r' => s.push_str("\\r"),
            '\t' => s.push_str("\\t"),
            '\'' => s.push_str("\\'"),
            '\\' => s.push_str("\\\\"),
            c if c.is_control() => s.push_str(&format!("\\x{:02x}", c as u32)),
            c => s.push(c),
        }
    }
    s.push('\'');
    s
}

/// Arguments shell-quoted and joined.
pub fn quote_all(args: &[&str]) -> String {
    args.iter().map(|a| quote(a)).collect::<Vec<_>>().join(" ")
}

/// Output bytes as `prefix` lines, cut after each `\n`.
fn push_lines(s: &mut String, prefix: &str, bytes: &[u8]) {
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        s.push_str(prefix);
        s.push(' ');
        s.push_str(&escape(line));
        s.push('\n');
    }
}

/// The file's text for `records` (name, arguments, record), in this order.
pub fn render(records: &[(&str, &[&str], &Record)], header: &str) -> String {
    let mut s = String::from(header);
    for (name, args, r) in records {
        s.push('\n');
        s.push_str(&format!("case {name}\n"));
        s.push_str(&format!("args {}\n", quote_all(args)));
        s.push_str(&format!("key {:08x}\n", r.key));
        s.push_str(&format!("exit {}\n", r.code));
        push_lines(&mut s, "out", &r.stdout);
        push_lines(&mut s, "err", &r.stderr);
    }
    s
}

/// The records of the file's `text`, by case name.
pub fn parse(text: &str) -> Result<BTreeMap<String, Record>, String> {
    let mut map = BTreeMap::new();
    let mut current: Option<(String, Record)> = None;
    for (n, line) in text.lines().enumerate() {
        let at = |m: String| format!("tests/rg/expected.txt line {}: {m}", n + 1);
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
        if word == "case" {
            if let Some((name, r)) = current.take() {
                map.insert(name, r);
            }
            let r = Record {
                key: 0,
                code: -1,
                stdout: Vec::new(),
                stderr: Vec::new(),
            };
            current = Some((rest.to_string(), r));
            continue;
        }
        let Some((_, r)) = current.as_mut() else {
            return Err(at(format!("{word:?} before any case")));
        };
        match word {
            "args" => {}
            "key" => r.key = u32::from_str_radix(rest, 16).map_err(|e| at(e.to_string()))?,
            "exit" => r.code = rest.parse().map_err(|_| at(format!("exit {rest:?}")))?,
            "out" => r.stdout.extend(unescape(rest).map_err(at)?),
            "err" => r.stderr.extend(unescape(rest).map_err(at)?),
            _ => return Err(at(format!("unknown line {line:?}"))),
        }
    }
    if let Some((name, r)) = current.take() {
        map.insert(name, r);
    }
    Ok(map)
}

#[test]
fn escape_round_trips() {
    let cases: &[&[u8]] = &[
        b"",
        b"plain text\n",
        b"\\ \\n \xff\xfe \x00 \x1b[0m\r\n",
        "\u{feff}Шерлок ☃ 東京\u{a0} end ".as_bytes(),
        b"\xe6\x97 cut",
        b"x \t",
    ];
    for &c in cases {
        let e = escape(c);
        assert!(!e.contains('\n') && !e.ends_with(' '), "{e:?}");
        assert_eq!(unescape(&e).unwrap(), c, "{e:?}");
    }
    let r = Record {
        key: 0xdead_beef,
        code: 2,
        stdout: b"a\n\nb \r".to_vec(),
        stderr: b"rg: error\n".to_vec(),
    };
    let text = render(&[("x::y", &["-e", "a b"], &r)], "# header\n");
    assert_eq!(parse(&text).unwrap()["x::y"], r);
}
