//! A viewer's use of the library: open once, jump to a line, page forward
//! and backward, and map a scrollbar position to a line — every step a
//! lookup, never a read from the start of the file.
//!
//! `cargo run --release --example viewer -- FILE [LINE] [SCREEN_HEIGHT]`
//! (LINE is 1-based, default 1; SCREEN_HEIGHT default 10).

use lidx::{Index, LineBuf};

/// One screen of a viewer: `height` lines starting at 0-based `top`.
struct Screen {
    top: u64,
    height: u64,
    buf: LineBuf,
}

impl Screen {
    fn show(&mut self, index: &Index, title: &str) -> lidx::Result<()> {
        index.read_lines(self.top..self.top + self.height, &mut self.buf)?;
        println!(
            "── {title}: lines {}..{} of {} ──",
            self.top + 1,
            self.top + self.buf.len() as u64,
            index.line_count()
        );
        for (i, line) in self.buf.iter().enumerate() {
            let text = String::from_utf8_lossy(line);
            let shown: String = text.chars().take(100).collect();
            println!("{:>10} │ {shown}", self.top + 1 + i as u64);
        }
        Ok(())
    }

    fn page_down(&mut self, index: &Index) {
        let last_top = index.line_count().saturating_sub(self.height);
        self.top = (self.top + self.height).min(last_top);
    }

    fn page_up(&mut self) {
        self.top = self.top.saturating_sub(self.height);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 2 {
        eprintln!("usage: viewer FILE [LINE] [SCREEN_HEIGHT]");
        std::process::exit(2);
    }
    if let Err(e) = run(&args) {
        eprintln!("viewer: {e}");
        std::process::exit(2);
    }
}

fn run(args: &[String]) -> lidx::Result<()> {
    let line: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1).max(1);
    let height: u64 = args
        .get(3)
        .and_then(|s| s.parse().ok())
        .unwrap_or(10)
        .max(1);

    // Open once: builds FILE.lidx on first use, afterwards reads its header.
    let index = Index::open_or_build(&args[1])?;
    let mut screen = Screen {
        top: (line - 1).min(index.line_count().saturating_sub(1)),
        height,
        buf: LineBuf::new(),
    };

    // Jump to a line.
    screen.show(&index, "goto")?;
    // Page forward twice and back once.
    screen.page_down(&index);
    screen.show(&index, "page down")?;
    screen.page_down(&index);
    screen.show(&index, "page down")?;
    screen.page_up();
    screen.show(&index, "page up")?;

    // A scrollbar dragged to 3/4 of its track: the thumb position is a byte
    // offset, and the line holding it becomes the top of the screen.
    if index.source_len() > 0 {
        let offset = index.source_len() / 4 * 3;
        screen.top = index.line_at(offset)?;
        screen.show(&index, &format!("scrollbar at 75% (byte {offset})"))?;
    }
    Ok(())
}
