//! Signals, as a pager takes them: `TERM`, `INT` and `HUP` end the viewer
//! as they end any program (killed by that signal: the shell sees
//! 128 + n), but only once the terminal is restored and the spool of a
//! pipe removed; `TSTP` (and `Ctrl-Z`, a key in raw mode) suspends it the
//! way `less` does (the terminal restored, then stopped); `CONT` redraws.
//!
//! A handler may do almost nothing (only async-signal-safe calls): it
//! writes the signal's number to a pipe. A thread reads the pipe and hands
//! the signal to the UI thread as a message, which leaves by the same way
//! as `q` (so the terminal is restored by the thread that draws on it,
//! after its last frame). Should the UI thread not get there within
//! [`GRACE`], the reading thread restores the terminal and ends the
//! process itself.
//!
//! The only `unsafe` code of the viewer is here.

use super::{Msg, term};
use std::io::Read;
use std::os::fd::{FromRawFd, RawFd};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::mpsc::Sender;
use std::time::Duration;

/// The signals that end the viewer.
pub const ENDING: [i32; 3] = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP];

/// How long the UI thread has to leave after an ending signal.
const GRACE: Duration = Duration::from_secs(2);

/// The pipe's write end, for the handler (-1: none).
static PIPE: AtomicI32 = AtomicI32::new(-1);

extern "C" fn on_signal(sig: libc::c_int) {
    let fd = PIPE.load(Ordering::Relaxed);
    if fd >= 0 {
        let b = sig as u8;
        // SAFETY: write(2) is async-signal-safe; `b` outlives the call and
        // the length is 1. A full pipe (the reader far behind) loses the
        // byte, which is harmless: the same signal is already queued. errno
        // is saved and restored so the interrupted code does not see ours.
        unsafe {
            let errno = *libc::__errno_location();
            libc::write(fd, (&b as *const u8).cast(), 1);
            *libc::__errno_location() = errno;
        }
    }
}

/// Sets `sig`'s disposition to `handler` (our handler, or `SIG_DFL`).
fn set(sig: i32, handler: libc::sighandler_t) {
    // SAFETY: a zeroed sigaction is a valid value (empty mask, no flags);
    // `handler` is `SIG_DFL` or `on_signal`, an `extern "C" fn(c_int)`
    // that only does async-signal-safe work. SA_RESTART keeps the other
    // threads' blocking reads from failing with EINTR.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = handler;
        sa.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(sig, &sa, std::ptr::null_mut());
    }
}

fn handler() -> libc::sighandler_t {
    on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t
}

/// Catches the ending signals, `TSTP` and `CONT`, and sends each to `tx`
/// as [`Msg::Signal`].
pub fn install(tx: Sender<Msg>) -> std::io::Result<()> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2 writes.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC | libc::O_NONBLOCK) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // The read end blocks (the thread waits on it); the write end does
    // not (a handler never waits).
    // SAFETY: fds[0] is a descriptor pipe2 just opened and nothing else
    // owns; the File owns it from here on.
    let mut read = unsafe {
        libc::fcntl(fds[0], libc::F_SETFL, 0);
        std::fs::File::from_raw_fd(fds[0])
    };
    PIPE.store(fds[1], Ordering::SeqCst);
    for sig in ENDING.into_iter().chain([libc::SIGTSTP, libc::SIGCONT]) {
        set(sig, handler());
    }
    std::thread::Builder::new()
        .name("lidx-view-signals".into())
        .spawn(move || {
            let mut b = [0u8; 1];
            while read.read_exact(&mut b).is_ok() {
                let sig = b[0] as i32;
                let sent = tx.send(Msg::Signal(sig)).is_ok();
                if ENDING.contains(&sig) {
                    // The UI thread leaves and ends the process; if it
                    // does not in time (or is gone), this thread does.
                    if sent {
                        std::thread::sleep(GRACE);
                    }
                    term::leave();
                    die(sig);
                }
            }
        })?;
    Ok(())
}

/// Ends the process as `sig` would have (its default action), for a
/// terminal already restored: the shell sees 128 + `sig`.
pub fn die(sig: i32) -> ! {
    set(sig, libc::SIG_DFL);
    // SAFETY: unblocking a signal in this thread's mask and raising it
    // touch no memory of ours.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, sig);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        libc::raise(sig);
    }
    // A signal whose default is not to end (never one of ENDING).
    std::process::exit(128 + sig)
}

/// Stops the process as `TSTP` does by default (the terminal already
/// restored), and returns once it is continued.
pub fn stop() {
    set(libc::SIGTSTP, libc::SIG_DFL);
    // SAFETY: as in `die`: a signal raised, no memory touched.
    unsafe {
        libc::raise(libc::SIGTSTP);
    }
    set(libc::SIGTSTP, handler());
}
