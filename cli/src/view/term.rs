//! The terminal: raw mode, the alternate screen and mouse reporting on
//! entry, and the way back on every exit path — a normal quit and an error
//! (the guard's `Drop`), and a panic (a hook that restores the terminal
//! before the CLI's own hook prints its one line), as bat and gitui do.

use ratatui::crossterm::{
    cursor, event,
    terminal::{self, EnterAlternateScreen, LeaveAlternateScreen},
};
use std::io::Write;
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
                restore();
                previous(info);
            }));
        });
        terminal::enable_raw_mode()?;
        ACTIVE.store(true, Ordering::SeqCst);
        let mut out = std::io::stdout();
        ratatui::crossterm::execute!(
            out,
            EnterAlternateScreen,
            event::EnableMouseCapture,
            cursor::Hide
        )?;
        Ok(Guard(()))
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        restore();
    }
}
