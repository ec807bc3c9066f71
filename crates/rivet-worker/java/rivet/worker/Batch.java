package rivet.worker;

import java.nio.ByteBuffer;

/** A decoded batch request: a table of members and the test cases that refer to it. */
final class Batch {
    final int id;
    /** Per member: owner (internal name), name, descriptor. */
    final String[] owners;
    final String[] names;
    final String[] descriptors;
    /** Resolved members (Constructor, Method, Field or Unrunnable), filled on first use. */
    final Object[] resolved;
    final Statement[][] tests;
    /** What to observe at calls of target members; null when nothing. */
    Observer observer;

    /** One statement; which fields are set depends on the tag. */
    static final class Statement {
        int tag;
        /** Primitive: its descriptor char; for ST_PRIMITIVE the boxed value is in `value`. */
        char type;
        Object value;
        /** String value, or the descriptor of Null / the component of Array. */
        String text;
        int member = Wire.NONE;
        int receiver = Wire.NONE;
        int[] args;
        /** Lambda: what its body does (0 returns args[0]'s value, 1 identity, 2 nothing, 3 throws). */
        int body;
        /** Scratch: the descriptor is `text`, then the relative path, the entry (0 missing,
         * 1 file, 2 directory) in `body`, and the contents: the file's, or the directory's
         * files as name, content pairs. */
        String path;
        String[] contents;
    }

    private Batch(int id, String[] owners, String[] names, String[] descriptors, Statement[][] tests) {
        this.id = id;
        this.owners = owners;
        this.names = names;
        this.descriptors = descriptors;
        this.resolved = new Object[owners.length];
        this.tests = tests;
    }

    /** Decodes the body of a batch frame (after its kind byte and batch id). */
    static Batch decode(int id, ByteBuffer b) {
        int members = Wire.getCount(b, 12);
        String[] owners = new String[members];
        String[] names = new String[members];
        String[] descriptors = new String[members];
        for (int i = 0; i < members; i++) {
            owners[i] = Wire.getString(b);
            names[i] = Wire.getString(b);
            descriptors[i] = Wire.getString(b);
        }
        int count = Wire.getCount(b, 4);
        Statement[][] tests = new Statement[count][];
        for (int t = 0; t < count; t++) {
            int n = Wire.getCount(b, 1);
            Statement[] statements = new Statement[n];
            for (int i = 0; i < n; i++) {
                statements[i] = statement(b, i, members);
            }
            tests[t] = statements;
        }
        Observer observer = null;
        if (b.hasRemaining()) {
            observer = Observer.decode(b, members);
        }
        if (b.hasRemaining()) {
            throw new IllegalArgumentException(b.remaining() + " bytes after the observation section");
        }
        Batch batch = new Batch(id, owners, names, descriptors, tests);
        batch.observer = observer;
        return batch;
    }

    private static Statement statement(ByteBuffer b, int index, int members) {
        Statement s = new Statement();
        s.tag = b.get() & 0xff;
        switch (s.tag) {
            case Wire.ST_PRIMITIVE:
                s.type = (char) (b.get() & 0xff);
                s.value = primitive(b, s.type);
                break;
            case Wire.ST_STRING:
                // The written test has a string literal here, and javac's literals are interned:
                // two statements with equal text are one object under JUnit, so they are here too
                // (StringUtils.equals(a, b) takes its a == b branch on them, in both).
                s.text = Wire.getString(b).intern();
                break;
            case Wire.ST_NULL:
                s.text = Wire.getString(b);
                break;
            case Wire.ST_ARRAY:
                s.text = Wire.getString(b);
                s.args = refs(b, index);
                break;
            case Wire.ST_CONSTRUCT:
                s.member = member(b, members);
                s.args = refs(b, index);
                break;
            case Wire.ST_CALL:
                s.member = member(b, members);
                s.receiver = optionalRef(b, index);
                s.args = refs(b, index);
                break;
            case Wire.ST_FIELD_WRITE:
                s.member = member(b, members);
                s.receiver = optionalRef(b, index);
                s.args = new int[] {ref(b, index)};
                break;
            case Wire.ST_CLASS_LITERAL:
                s.text = Wire.getString(b);
                break;
            case Wire.ST_CONSTANT:
                s.member = member(b, members);
                s.args = new int[0];
                break;
            case Wire.ST_LAMBDA: {
                s.text = Wire.getString(b);
                s.member = member(b, members);
                s.body = b.get() & 0xff;
                int value = b.getInt();
                if (s.body == 0) {
                    if (value < 0 || value >= index) {
                        throw new IllegalArgumentException("statement " + index + " refers to " + value);
                    }
                    s.args = new int[] {value};
                } else if (s.body > 3 || value != Wire.NONE) {
                    throw new IllegalArgumentException("bad lambda body " + s.body);
                } else {
                    s.args = new int[0];
                }
                break;
            }
            case Wire.ST_SCRATCH: {
                s.text = Wire.getString(b);
                s.path = Wire.getString(b);
                s.body = b.get() & 0xff;
                s.args = new int[0];
                if (s.body == 1) {
                    s.contents = new String[] {Wire.getString(b)};
                } else if (s.body == 2) {
                    int n = Wire.getCount(b, 8);
                    s.contents = new String[2 * n];
                    for (int i = 0; i < 2 * n; i++) {
                        s.contents[i] = Wire.getString(b);
                    }
                } else if (s.body != 0) {
                    throw new IllegalArgumentException("unknown scratch entry " + s.body);
                }
                break;
            }
            default:
                throw new IllegalArgumentException("unknown statement tag " + s.tag);
        }
        return s;
    }

    private static Object primitive(ByteBuffer b, char type) {
        switch (type) {
            case 'Z': return b.get() != 0;
            case 'B': return b.get();
            case 'C': return b.getChar();
            case 'S': return b.getShort();
            case 'I': return b.getInt();
            case 'J': return b.getLong();
            case 'F': return Float.intBitsToFloat(b.getInt());
            case 'D': return Double.longBitsToDouble(b.getLong());
            default: throw new IllegalArgumentException("unknown primitive type " + type);
        }
    }

    private static int member(ByteBuffer b, int members) {
        int m = b.getInt();
        if (m < 0 || m >= members) {
            throw new IllegalArgumentException("member " + m + " is not in the table");
        }
        return m;
    }

    private static int ref(ByteBuffer b, int index) {
        int r = b.getInt();
        if (r < 0 || r >= index) {
            throw new IllegalArgumentException("statement " + index + " refers to " + r);
        }
        return r;
    }

    private static int optionalRef(ByteBuffer b, int index) {
        int r = b.getInt();
        if (r == Wire.NONE) {
            return r;
        }
        if (r < 0 || r >= index) {
            throw new IllegalArgumentException("statement " + index + " refers to " + r);
        }
        return r;
    }

    private static int[] refs(ByteBuffer b, int index) {
        int n = Wire.getCount(b, 4);
        int[] r = new int[n];
        for (int i = 0; i < n; i++) {
            r[i] = ref(b, index);
        }
        return r;
    }
}
