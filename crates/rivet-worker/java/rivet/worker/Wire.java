package rivet.worker;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Constants and byte-level helpers of the worker protocol (see crates/rivet-worker/src/protocol.rs
 * for the format). All integers are big-endian; strings are a u32 byte length and UTF-8 bytes.
 */
final class Wire {
    private Wire() {}

    static final int VERSION = 4;
    static final byte[] MAGIC = "RIVETWKR".getBytes(StandardCharsets.US_ASCII);
    static final int NONE = -1;

    // Requests.
    static final int REQ_BATCH = 1;
    static final int REQ_PING = 2;
    static final int REQ_SHUTDOWN = 3;
    static final int REQ_LIMITS = 4;

    // Responses.
    static final int RESP_READY = 0x80;
    static final int RESP_RESULT = 0x81;
    static final int RESP_PONG = 0x82;
    static final int RESP_ERROR = 0x83;

    // Statements.
    static final int ST_PRIMITIVE = 0;
    static final int ST_STRING = 1;
    static final int ST_NULL = 2;
    static final int ST_ARRAY = 3;
    static final int ST_CONSTRUCT = 4;
    static final int ST_CALL = 5;
    static final int ST_FIELD_WRITE = 6;
    static final int ST_CLASS_LITERAL = 7;
    static final int ST_LAMBDA = 8;
    static final int ST_CONSTANT = 9;
    static final int ST_SCRATCH = 10;

    // Outcomes.
    static final int OUT_NOT_RUN = 0;
    static final int OUT_NORMAL = 1;
    static final int OUT_THREW = 2;

    // Value summaries.
    static final int V_VOID = 0;
    static final int V_BOOLEAN = 1;
    static final int V_BYTE = 2;
    static final int V_CHAR = 3;
    static final int V_SHORT = 4;
    static final int V_INT = 5;
    static final int V_LONG = 6;
    static final int V_FLOAT = 7;
    static final int V_DOUBLE = 8;
    static final int V_NULL = 9;
    static final int V_STRING = 10;
    static final int V_OBJECT = 11;

    /** Strings in results (values, messages) are cut to this many chars. */
    static final int MAX_STRING_CHARS = 65536;

    static String getString(ByteBuffer b) {
        int n = b.getInt();
        if (n < 0 || n > b.remaining()) {
            throw new IllegalArgumentException("string length " + n + " exceeds the frame");
        }
        String s = new String(b.array(), b.arrayOffset() + b.position(), n, StandardCharsets.UTF_8);
        b.position(b.position() + n);
        return s;
    }

    static int getCount(ByteBuffer b, int minBytesEach) {
        int n = b.getInt();
        if (n < 0 || (long) n * minBytesEach > b.remaining()) {
            throw new IllegalArgumentException("count " + n + " exceeds the frame");
        }
        return n;
    }

    /** A growable big-endian output buffer for one frame; the first 4 bytes hold its length. */
    static final class Out {
        byte[] buf = new byte[1 << 12];
        int pos = 4;

        void reset() {
            pos = 4;
        }

        private void ensure(int n) {
            if (pos + n > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, pos + n));
            }
        }

        void u8(int v) {
            ensure(1);
            buf[pos++] = (byte) v;
        }

        void u16(int v) {
            ensure(2);
            buf[pos++] = (byte) (v >>> 8);
            buf[pos++] = (byte) v;
        }

        void u32(int v) {
            ensure(4);
            buf[pos++] = (byte) (v >>> 24);
            buf[pos++] = (byte) (v >>> 16);
            buf[pos++] = (byte) (v >>> 8);
            buf[pos++] = (byte) v;
        }

        void u64(long v) {
            u32((int) (v >>> 32));
            u32((int) v);
        }

        void bytes(byte[] b) {
            ensure(b.length);
            System.arraycopy(b, 0, buf, pos, b.length);
            pos += b.length;
        }

        void str(String s) {
            if (s.length() > MAX_STRING_CHARS) {
                s = s.substring(0, MAX_STRING_CHARS);
            }
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            u32(b.length);
            bytes(b);
        }

        /** Writes the payload length into the first 4 bytes; returns the frame's total size. */
        int seal() {
            int n = pos - 4;
            buf[0] = (byte) (n >>> 24);
            buf[1] = (byte) (n >>> 16);
            buf[2] = (byte) (n >>> 8);
            buf[3] = (byte) n;
            return pos;
        }
    }
}
