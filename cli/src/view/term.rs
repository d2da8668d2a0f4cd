//! The terminal: raw mode, the alternate screen and mouse reporting on
//! entry, and the way back on every exit path — a normal quit and an error
//! (the guard's `Drop`), a panic (a hook that restores the terminal
//! before the CLI's own hook prints its one line), as bat and gitui do,
//! and a signal ([`super::signals`]). The way back also removes the
//! files the viewer made for itself (the spool of a pipe): [`leave`].

use ratatui::crossterm::{
    cursor, event,
    terminal::{self, EnterAlternateScreen, LeaveAlternateScreen},
};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether the terminal is in the viewer's state (so that restoring twice,
/// from the hook and from the guard, does nothing the second time).
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// Puts the terminal back as it was: leaves the alternate screen, stops
/// mouse reporting, shows the cursor, leaves raw mode. Safe to call from a
/// panic hook and more than once.
pub fn restore() {
    if ACTIVE.swap(false, Ordering::SeqCst) {
        let mut out = std::io::stdout();
        let _ = ratatui::crossterm::execute!(
            out,
            event::DisableMouseCapture,
            LeaveAlternateScreen,
            cursor::Show
        );
        let _ = terminal::disable_raw_mode();
        let _ = out.flush();
    }
}

/// Files and folders removed on the way out.
static TEMPORARY: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Removes `path` (a file, or a folder and all in it) on the way out,
/// whichever way that is: [`leave`].
pub fn remove_on_exit(path: PathBuf) {
    TEMPORARY
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(path);
}

/// The way out: the terminal restored ([`restore`]) and the temporary
/// files removed. Safe to call from a panic hook and more than once.
pub fn leave() {
    restore();
    let paths = std::mem::take(&mut *TEMPORARY.lock().unwrap_or_else(|e| e.into_inner()));
    for p in paths {
        let _ = std::fs::remove_dir_all(&p).or_else(|_| std::fs::remove_file(&p));
    }
}

/// Enters the viewer's state again after [`restore`] (back from a
/// suspension).
pub fn resume() -> std::io::Result<()> {
    enter()
}

fn enter() -> std::io::Result<()> {
    terminal::enable_raw_mode()?;
    ACTIVE.store(true, Ordering::SeqCst);
    let mut out = std::io::stdout();
    ratatui::crossterm::execute!(
        out,
        EnterAlternateScreen,
        event::EnableMouseCapture,
        cursor::Hide
    )
}

/// The terminal in the viewer's state for as long as it lives.
pub struct Guard(());

impl Guard {
    /// Enters raw mode, the alternate screen and mouse reporting, and
    /// installs the panic hook (once).
    pub fn enter() -> std::io::Result<Guard> {
        static HOOK: std::sync::Once = std::sync::Once::new();
        HOOK.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                leave();
                previous(info);
            }));
        });
        enter()?;
        Ok(Guard(()))
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        leave();
    }
}
