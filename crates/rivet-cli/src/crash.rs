//! A crash says so: a fault in native code (Z3) ends the process with a line on stderr that
//! names the signal, instead of a silent exit a CI log cannot explain.

use std::sync::OnceLock;

/// The signals a crash raises; each handler chains to the one installed before (std's stack
/// overflow report for SIGSEGV and SIGBUS, the default action otherwise).
const SIGNALS: [(libc::c_int, &str); 4] = [
    (libc::SIGSEGV, "segmentation fault"),
    (libc::SIGBUS, "bus error"),
    (libc::SIGILL, "illegal instruction"),
    (libc::SIGFPE, "arithmetic fault"),
];

/// The handlers that were installed before ours, by index in `SIGNALS`.
static PREVIOUS: OnceLock<[libc::sigaction; 4]> = OnceLock::new();

/// Installs the reporting handlers (once, at start-up, before any other thread runs).
pub fn report_crashes() {
    let mut previous: [libc::sigaction; 4] = [zeroed_action(); 4];
    for (slot, (signal, _)) in previous.iter_mut().zip(SIGNALS) {
        let mut action = zeroed_action();
        action.sa_sigaction = on_crash as *const () as usize;
        action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
        // SAFETY: sigaction with valid pointers to initialized structs; the handler only calls
        // async-signal-safe functions (write, sigaction) and the previous handler.
        unsafe {
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, slot);
        }
    }
    let _ = PREVIOUS.set(previous);
}

fn zeroed_action() -> libc::sigaction {
    // SAFETY: sigaction is a plain C struct for which all-zero bytes are a valid value.
    unsafe { std::mem::zeroed() }
}

extern "C" fn on_crash(
    signal: libc::c_int,
    info: *mut libc::siginfo_t,
    context: *mut libc::c_void,
) {
    let index = SIGNALS.iter().position(|(s, _)| *s == signal);
    let name = index.map_or("fatal signal", |i| SIGNALS[i].1);
    let text = format_line(name);
    // SAFETY: write(2) on stderr with a buffer that lives for the call.
    unsafe {
        libc::write(2, text.as_ptr().cast(), text.len());
    }
    let previous = index.and_then(|i| PREVIOUS.get().map(|p| p[i]));
    match previous {
        Some(old) if old.sa_sigaction > libc::SIG_IGN => {
            // SAFETY: the handler installed before ours, called as the kernel would have.
            unsafe {
                if old.sa_flags & libc::SA_SIGINFO != 0 {
                    let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                        std::mem::transmute(old.sa_sigaction);
                    f(signal, info, context);
                } else {
                    let f: extern "C" fn(libc::c_int) = std::mem::transmute(old.sa_sigaction);
                    f(signal);
                }
            }
        }
        _ => {
            // SAFETY: back to the default action; returning re-raises the fault, which ends
            // the process with the signal.
            unsafe {
                let action = zeroed_action();
                libc::sigaction(signal, &action, std::ptr::null_mut());
            }
        }
    }
}

/// The line printed (a fixed buffer: no allocation in a signal handler).
fn format_line(name: &str) -> FixedLine {
    let mut line = FixedLine::default();
    line.push("rivet: error: internal crash (");
    line.push(name);
    line.push("), most likely in the native solver; the tests written so far are lost. Please report it with the class\n");
    line
}

/// A line of at most 256 bytes on the stack.
struct FixedLine {
    bytes: [u8; 256],
    len: usize,
}

impl Default for FixedLine {
    fn default() -> FixedLine {
        FixedLine {
            bytes: [0; 256],
            len: 0,
        }
    }
}

impl FixedLine {
    fn push(&mut self, s: &str) {
        let room = self.bytes.len() - self.len;
        let n = s.len().min(room);
        self.bytes[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
    }

    fn as_ptr(&self) -> *const u8 {
        self.bytes.as_ptr()
    }

    fn len(&self) -> usize {
        self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_names_the_signal_and_ends_in_a_newline() {
        let line = format_line("segmentation fault");
        let text = std::str::from_utf8(&line.bytes[..line.len()]).unwrap();
        assert!(text.starts_with("rivet: error: internal crash (segmentation fault)"));
        assert!(text.ends_with('\n'));
    }
}
