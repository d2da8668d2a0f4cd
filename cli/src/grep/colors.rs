//! Colour settings: ripgrep's defaults, its `--colors` specs
//! (`{type}:{attribute}:{value}`, applied in order over the defaults) and
//! the escape sequences written for them, byte for byte as ripgrep's
//! (each starts with a reset; then bold, italic, underline, foreground,
//! background).
//!
//! Types are `path`, `line`, `column` and `match`; `highlight` (ripgrep's
//! colour for the rest of a matching line) is refused unless it stays
//! empty, as it is by default. Names are case-insensitive. A path, line
//! number or column is always written between escapes, even when its spec
//! is empty (a reset alone); a match whose spec is empty is not coloured at
//! all, and its line is then printed as without colours.

use lidx::Error;

/// One of the eight named colours, a 256-colour number or a 24-bit one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Color {
    /// black, red, green, yellow, blue, magenta, cyan, white: 0 to 7.
    Named(u8),
    Ansi256(u8),
    Rgb(u8, u8, u8),
}

/// The settings of one output type.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Spec {
    fg: Option<Color>,
    bg: Option<Color>,
    bold: bool,
    /// Named colours in their bright variant (256-colour codes 8 to 15).
    intense: bool,
    underline: bool,
    italic: bool,
}

impl Spec {
    fn is_none(&self) -> bool {
        *self == Spec::default()
    }

    /// The escape sequence that starts text in this spec.
    fn escape(&self) -> Vec<u8> {
        let mut e = b"\x1b[0m".to_vec();
        for (on, code) in [(self.bold, 1), (self.italic, 3), (self.underline, 4)] {
            if on {
                e.extend_from_slice(format!("\x1b[{code}m").as_bytes());
            }
        }
        for (color, ground) in [(self.fg, 3), (self.bg, 4)] {
            let code = match color {
                None => continue,
                Some(Color::Named(n)) if self.intense => format!("{ground}8;5;{}", n + 8),
                Some(Color::Named(n)) => format!("{ground}{n}"),
                Some(Color::Ansi256(n)) => format!("{ground}8;5;{n}"),
                Some(Color::Rgb(r, g, b)) => format!("{ground}8;2;{r};{g};{b}"),
            };
            e.extend_from_slice(format!("\x1b[{code}m").as_bytes());
        }
        e
    }
}

/// The escape sequences of a colour output (see the module doc).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Colors {
    /// Before a path.
    pub path: Vec<u8>,
    /// Before a line number.
    pub line: Vec<u8>,
    /// Before a column or a byte offset.
    pub column: Vec<u8>,
    /// Before a match; `None`: matches are not coloured.
    pub matched: Option<Vec<u8>>,
}

const TYPES: &str = "path, line, column, match, highlight";

/// The colours of ripgrep's defaults with `specs` applied in order.
pub fn parse(specs: &[String]) -> Result<Colors, Error> {
    let mut path = Spec {
        fg: Some(Color::Named(5)),
        ..Spec::default()
    };
    let mut line = Spec {
        fg: Some(Color::Named(2)),
        ..Spec::default()
    };
    let mut column = Spec::default();
    let mut matched = Spec {
        fg: Some(Color::Named(1)),
        bold: true,
        ..Spec::default()
    };
    let mut highlight = Spec::default();
    for s in specs {
        let bad = |what: String| Error::InvalidArgument(format!("--colors: {what}"));
        let format = || {
            bad(format!(
                "invalid color spec format: '{s}'. Valid format is '(path|line|column|match|highlight):(fg|bg|style):(value)'."
            ))
        };
        let parts: Vec<&str> = s.split(':').collect();
        if !(2..=3).contains(&parts.len()) {
            return Err(format());
        }
        let spec = match parts[0].to_ascii_lowercase().as_str() {
            "path" => &mut path,
            "line" => &mut line,
            "column" => &mut column,
            "match" => &mut matched,
            "highlight" => &mut highlight,
            _ => {
                return Err(bad(format!(
                    "unrecognized output type '{}'. Choose from: {TYPES}.",
                    parts[0]
                )));
            }
        };
        let attribute = parts[1].to_ascii_lowercase();
        if !["fg", "bg", "style", "none"].contains(&attribute.as_str()) {
            return Err(bad(format!(
                "unrecognized spec type '{}'. Choose from: fg, bg, style, none.",
                parts[1]
            )));
        }
        if attribute == "none" {
            *spec = Spec::default();
            continue;
        }
        let Some(value) = parts.get(2) else {
            return Err(format());
        };
        match attribute.as_str() {
            "fg" => spec.fg = Some(color(value).map_err(bad)?),
            "bg" => spec.bg = Some(color(value).map_err(bad)?),
            _ => style(spec, value).map_err(bad)?,
        }
    }
    if !highlight.is_none() {
        return Err(Error::InvalidArgument(
            "--colors: the highlight type (colouring the rest of a matching line) is not supported by lidx grep; use path, line, column or match".into(),
        ));
    }
    Ok(Colors {
        path: path.escape(),
        line: line.escape(),
        column: column.escape(),
        matched: (!matched.is_none()).then(|| matched.escape()),
    })
}

/// A colour value: a name, `N` or `R,G,B` (decimal, or hex after `0x`).
fn color(value: &str) -> Result<Color, String> {
    const NAMES: [&str; 8] = [
        "black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
    ];
    let lower = value.to_ascii_lowercase();
    if let Some(n) = NAMES.iter().position(|&c| c == lower) {
        return Ok(Color::Named(n as u8));
    }
    let number = |n: &str| match n.strip_prefix("0x") {
        Some(hex) => u8::from_str_radix(hex, 16).ok(),
        None => n.parse::<u8>().ok(),
    };
    let codes: Vec<&str> = value.split(',').collect();
    if let [one] = codes[..] {
        if let Some(n) = number(one) {
            return Ok(Color::Ansi256(n));
        }
        return Err(if one.bytes().all(|b| b.is_ascii_hexdigit()) {
            format!(
                "unrecognized ansi256 color number, should be '[0-255]' (or a hex number), but is '{value}'"
            )
        } else {
            format!(
                "unrecognized color name '{value}'. Choose from: black, blue, green, red, cyan, magenta, yellow, white"
            )
        });
    }
    match codes[..] {
        [r, g, b] if let (Some(r), Some(g), Some(b)) = (number(r), number(g), number(b)) => {
            Ok(Color::Rgb(r, g, b))
        }
        _ => Err(format!(
            "unrecognized RGB color triple, should be '[0-255],[0-255],[0-255]' (or a hex triple), but is '{value}'"
        )),
    }
}

fn style(spec: &mut Spec, value: &str) -> Result<(), String> {
    match value.to_ascii_lowercase().as_str() {
        "bold" => spec.bold = true,
        "nobold" => spec.bold = false,
        "intense" => spec.intense = true,
        "nointense" => spec.intense = false,
        "underline" => spec.underline = true,
        "nounderline" => spec.underline = false,
        "italic" => spec.italic = true,
        "noitalic" => spec.italic = false,
        _ => {
            return Err(format!(
                "unrecognized style attribute '{value}'. Choose from: nobold, bold, nointense, intense, nounderline, underline, noitalic, italic."
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn colors(specs: &[&str]) -> Result<Colors, String> {
        let specs: Vec<String> = specs.iter().map(|s| s.to_string()).collect();
        parse(&specs).map_err(|e| e.to_string())
    }

    /// Sequences as ripgrep 15.2.0 writes them (run with these specs).
    #[test]
    fn escapes_as_ripgrep_writes_them() {
        let d = colors(&[]).unwrap();
        assert_eq!(d.path, b"\x1b[0m\x1b[35m");
        assert_eq!(d.line, b"\x1b[0m\x1b[32m");
        assert_eq!(d.column, b"\x1b[0m");
        assert_eq!(d.matched.as_deref(), Some(&b"\x1b[0m\x1b[1m\x1b[31m"[..]));
        let cases: [(&[&str], Option<&[u8]>); 9] = [
            (&["match:none"], None),
            (&["MATCH:NONE"], None),
            (&["match:none", "match:style:nointense"], None),
            (&["match:none", "match:style:intense"], Some(b"\x1b[0m")),
            (&["match:style:nobold"], Some(b"\x1b[0m\x1b[31m")),
            (
                &["match:style:intense"],
                Some(b"\x1b[0m\x1b[1m\x1b[38;5;9m"),
            ),
            (
                &[
                    "match:fg:blue",
                    "match:bg:yellow",
                    "match:style:underline",
                    "match:style:italic",
                    "match:style:intense",
                ],
                Some(b"\x1b[0m\x1b[1m\x1b[3m\x1b[4m\x1b[38;5;12m\x1b[48;5;11m"),
            ),
            (
                &["match:fg:1,2,3", "match:style:intense", "match:bg:7"],
                Some(b"\x1b[0m\x1b[1m\x1b[38;2;1;2;3m\x1b[48;5;7m"),
            ),
            (&["match:Fg:0x0a"], Some(b"\x1b[0m\x1b[1m\x1b[38;5;10m")),
        ];
        for (specs, want) in cases {
            assert_eq!(colors(specs).unwrap().matched.as_deref(), want, "{specs:?}");
        }
        assert_eq!(colors(&["path:none"]).unwrap().path, b"\x1b[0m");
        assert_eq!(
            colors(&["match:fg:+1"]).unwrap().matched.as_deref(),
            Some(&b"\x1b[0m\x1b[1m\x1b[38;5;1m"[..])
        );
    }

    #[test]
    fn errors_name_what_is_wrong() {
        for (spec, want) in [
            ("match", "invalid color spec format: 'match'"),
            ("match:fg", "invalid color spec format"),
            ("match:fg:red:x", "invalid color spec format"),
            ("foo:fg", "unrecognized output type 'foo'"),
            ("match:", "unrecognized spec type ''"),
            ("match:style:", "unrecognized style attribute ''"),
            ("match:fg:purple", "unrecognized color name 'purple'"),
            ("match:fg:-1", "unrecognized color name '-1'"),
            ("match:fg:0X10", "unrecognized color name '0X10'"),
            ("match:fg:", "unrecognized ansi256 color number"),
            ("match:fg:256", "unrecognized ansi256 color number"),
            ("match:fg:1,2", "unrecognized RGB color triple"),
            ("match:fg:0x10,0x20,300", "unrecognized RGB color triple"),
            ("highlight:bg:yellow", "highlight type"),
        ] {
            let e = colors(&[spec]).unwrap_err();
            assert!(e.contains(want), "{spec}: {e}");
        }
        assert!(colors(&["highlight:none", "match:none:x"]).is_ok());
    }
}
