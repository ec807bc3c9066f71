package rivet.worker;

import java.io.OutputStream;

/** Where System.out and System.err of the code under test go: nowhere. */
final class Sink extends OutputStream {
    @Override
    public void write(int b) {}

    @Override
    public void write(byte[] b, int off, int len) {}
}
