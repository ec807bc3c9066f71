package rivet.worker;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * Rivet's worker harness: the main class of each worker JVM. It keeps the real stdout for the
 * protocol, sends System.out/System.err of the code under test to a sink, reads request frames from
 * stdin on a daemon thread (halting the JVM when stdin closes, so a worker never outlives its
 * parent), and runs each batch's tests one by one, sending one result frame per test as soon as
 * it finishes.
 */
public final class Worker {
    /** Largest request frame accepted (bytes). */
    private static final int MAX_FRAME = 256 << 20;

    private final PrintStream log;
    private final OutputStream out;
    private final Wire.Out frame = new Wire.Out();

    private Worker(PrintStream log, OutputStream out) {
        this.log = log;
        this.out = out;
    }

    public static void main(String[] args) {
        PrintStream log = new PrintStream(new FileOutputStream(FileDescriptor.err), true);
        try {
            OutputStream out = new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16);
            new Worker(log, out).serve();
        } catch (Throwable t) {
            try {
                log.println("rivet worker: fatal error in the harness");
                t.printStackTrace(log);
                log.flush();
            } catch (Throwable ignored) {
                // Nothing left to report with.
            }
            Runtime.getRuntime().halt(70);
        }
        Runtime.getRuntime().halt(0);
    }

    private void serve() throws IOException, InterruptedException {
        PrintStream sink = new PrintStream(new Sink(), false);
        InputStream emptyIn = new ByteArrayInputStream(new byte[0]);
        System.setOut(sink);
        System.setErr(sink);
        System.setIn(emptyIn);
        // The JDK's own file-system changes are watched where a security manager still exists
        // (its deprecation warning goes to the sink).
        WriteWatch.install();

        final BlockingQueue<byte[]> requests = new LinkedBlockingQueue<byte[]>();
        final InputStream stdin = new FileInputStream(FileDescriptor.in);
        Thread pump = new Thread(new Runnable() {
            @Override
            public void run() {
                pumpRequests(stdin, requests);
            }
        }, "rivet-worker-stdin");
        pump.setDaemon(true);
        pump.start();

        frame.reset();
        frame.u8(Wire.RESP_READY);
        frame.bytes(Wire.MAGIC);
        frame.u32(Wire.VERSION);
        frame.str(String.valueOf(System.getProperty("java.version")));
        frame.str(String.valueOf(System.getProperty("java.vm.name")));
        send();

        ClassLoader loader = ClassLoader.getSystemClassLoader();
        Runner runner = new Runner(new Members(loader), sink, emptyIn, loader, log, Thread.activeCount());
        for (;;) {
            ByteBuffer b = ByteBuffer.wrap(requests.take());
            int kind = b.get() & 0xff;
            switch (kind) {
                case Wire.REQ_BATCH: {
                    int id = b.remaining() >= 4 ? b.getInt() : Wire.NONE;
                    Batch batch;
                    try {
                        batch = Batch.decode(id, b);
                    } catch (RuntimeException e) {
                        error(id, "cannot decode batch: " + e);
                        break;
                    }
                    for (int i = 0; i < batch.tests.length; i++) {
                        runner.run(batch, i, frame);
                        send();
                    }
                    break;
                }
                case Wire.REQ_LIMITS:
                    runner.deadline.set(b.getLong(), b.get() != 0, b.getLong());
                    break;
                case Wire.REQ_PING:
                    frame.reset();
                    frame.u8(Wire.RESP_PONG);
                    frame.u64(b.remaining() >= 8 ? b.getLong() : 0);
                    send();
                    break;
                case Wire.REQ_SHUTDOWN:
                    out.flush();
                    Runtime.getRuntime().halt(0);
                    break;
                default:
                    error(Wire.NONE, "unknown request kind " + kind);
            }
        }
    }

    private void error(int batch, String message) throws IOException {
        frame.reset();
        frame.u8(Wire.RESP_ERROR);
        frame.u32(batch);
        frame.str(message);
        send();
    }

    private void send() throws IOException {
        int n = frame.seal();
        out.write(frame.buf, 0, n);
        out.flush();
    }

    /** Reads frames from stdin; stdin closing (the parent is gone or shutting down) halts the JVM. */
    private void pumpRequests(InputStream stdin, BlockingQueue<byte[]> requests) {
        DataInputStream in = new DataInputStream(new BufferedInputStream(stdin, 1 << 16));
        try {
            for (;;) {
                int n = in.readInt();
                if (n < 1 || n > MAX_FRAME) {
                    log.println("rivet worker: bad request frame length " + n);
                    log.flush();
                    Runtime.getRuntime().halt(71);
                }
                byte[] payload = new byte[n];
                in.readFully(payload);
                requests.put(payload);
            }
        } catch (EOFException e) {
            Runtime.getRuntime().halt(0);
        } catch (Throwable t) {
            try {
                log.println("rivet worker: reading requests failed: " + t);
                log.flush();
            } catch (Throwable ignored) {
                // Nothing left to report with.
            }
            Runtime.getRuntime().halt(72);
        }
    }
}
