//! The `lidx` binary: everything lives in `cli/`.

mod cli;

fn main() {
    // A bug must not spill a backtrace on users: one line, exit 2.
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!("lidx: internal error: {msg}{at} (please report this)");
        std::process::exit(2);
    }));
    std::process::exit(cli::run());
}
