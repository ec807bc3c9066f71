//! Reading response frames from a worker's stdout on the supervising thread itself, with a
//! deadline (`poll(2)`), so that each result costs one wake-up and no thread hand-off.

use std::io::{self, Read};
use std::os::fd::AsRawFd;
use std::process::ChildStdout;
use std::time::Instant;

use crate::protocol::{decode_response, Response, MAX_FRAME};

/// What waiting for the next frame produced.
pub(crate) enum Event {
    Frame(Response),
    /// The deadline passed first.
    Timeout,
    /// The worker's stdout ended (the JVM is exiting or gone) or could not be read.
    Closed(String),
    /// The worker's stdout carried something that is not a frame (the JVM may still run).
    Corrupt(String),
}

/// A buffered reader of frames from a worker's stdout.
pub(crate) struct FrameReader {
    stdout: ChildStdout,
    buf: Vec<u8>,
    start: usize,
    end: usize,
}

impl FrameReader {
    pub(crate) fn new(stdout: ChildStdout) -> Self {
        FrameReader {
            stdout,
            buf: vec![0; 1 << 16],
            start: 0,
            end: 0,
        }
    }

    /// The next frame, waiting at most until `deadline`.
    pub(crate) fn next(&mut self, deadline: Instant) -> Event {
        loop {
            match self.buffered() {
                Ok(Some(event)) => return event,
                Ok(None) => {}
                Err(why) => return Event::Corrupt(why),
            }
            match self.wait_readable(deadline) {
                Ok(true) => {}
                Ok(false) => return Event::Timeout,
                Err(e) => return Event::Closed(format!("waiting for its output failed: {e}")),
            }
            self.make_room();
            match self.stdout.read(&mut self.buf[self.end..]) {
                Ok(0) => return Event::Closed("its output ended".into()),
                Ok(n) => self.end += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Event::Closed(format!("reading its output failed: {e}")),
            }
        }
    }

    /// A complete frame already in the buffer, decoded.
    fn buffered(&mut self) -> Result<Option<Event>, String> {
        let have = self.end - self.start;
        if have < 4 {
            return Ok(None);
        }
        let mut len = [0u8; 4];
        len.copy_from_slice(&self.buf[self.start..self.start + 4]);
        let n = u32::from_be_bytes(len) as usize;
        if n == 0 || n > MAX_FRAME {
            return Err(format!(
                "protocol error: frame length {n} out of range (stray output on the worker's stdout?)"
            ));
        }
        if have < 4 + n {
            if self.buf.len() < 4 + n {
                self.buf.resize(4 + n, 0);
            }
            return Ok(None);
        }
        let payload = &self.buf[self.start + 4..self.start + 4 + n];
        let response = decode_response(payload).map_err(|e| format!("protocol error: {e}"))?;
        self.start += 4 + n;
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        }
        Ok(Some(Event::Frame(response)))
    }

    /// Moves the unread bytes to the front when the buffer's tail is full.
    fn make_room(&mut self) {
        if self.end == self.buf.len() {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
            if self.end == self.buf.len() {
                let n = self.buf.len() * 2;
                self.buf.resize(n, 0);
            }
        }
    }

    /// Waits until stdout is readable (data, end of file or error) or the deadline passes.
    fn wait_readable(&self, deadline: Instant) -> io::Result<bool> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            // Round up, so that a wait never ends before the deadline.
            let ms = left.as_micros().div_ceil(1000).min(i32::MAX as u128) as i32;
            let mut fd = libc::pollfd {
                fd: self.stdout.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: poll(2) on one valid pollfd that lives across the call; the descriptor is
            // owned by `self.stdout`, which outlives the call.
            let ready = unsafe { libc::poll(&mut fd, 1, ms) };
            if ready > 0 {
                return Ok(true);
            }
            if ready == 0 {
                if Instant::now() >= deadline {
                    return Ok(false);
                }
                continue;
            }
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
    }
}
