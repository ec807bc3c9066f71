package rivet.worker;

import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Observes, at each call of a target member, the values along access paths from the receiver
 * and the arguments (for path-condition goals). Reading never changes the test's outcome: any
 * failure to read makes the value undefined. Only the harness reads; tests never use reflection.
 */
final class Observer {
    static final int ROOT_RECEIVER = 0;
    static final int ROOT_ARGUMENT = 1;
    static final int STEP_FIELD = 0;
    static final int STEP_INDEX = 1;
    static final int STEP_LENGTH = 2;
    static final int OBS_UNDEFINED = 0;
    static final int OBS_NULL = 1;
    static final int OBS_INT = 2;
    static final int OBS_OBJECT = 3;
    static final int OBS_FLOAT = 4;
    static final int OBS_DOUBLE = 5;

    /** One path: its root, the argument index, and its steps. */
    static final class Path {
        int root;
        int argument;
        int[] kinds;
        String[] fields;
        int[] indices;
    }

    /** Per target: the member index in the batch and its paths. */
    final int[] members;
    final Path[][] paths;
    /** Record the branch probes taken during each observed call (concolic traces). */
    final boolean trace;
    /** Snapshots of the objects at calls of some members, or null. */
    final Snapshots snapshots;
    /** Per observed call of the current test: its trace and whether it was cut. */
    private final List<int[]> traces = new ArrayList<int[]>();
    private final List<Boolean> truncated = new ArrayList<Boolean>();
    /** Index of the call being traced, or -1. */
    private int tracingCall = -1;
    private static final int[] NO_TRACE = new int[0];

    private static final Object UNDEFINED = new Object();
    private static final Map<Class<?>, Map<String, Field>> FIELDS = new HashMap<Class<?>, Map<String, Field>>();

    /** The calls observed in the current test: statement, target, values. */
    private final List<int[]> calls = new ArrayList<int[]>();
    private final List<Object[]> values = new ArrayList<Object[]>();
    private final IdentityHashMap<Object, Integer> ids = new IdentityHashMap<Object, Integer>();

    private Observer(int[] members, Path[][] paths, boolean trace, Snapshots snapshots) {
        this.members = members;
        this.paths = paths;
        this.trace = trace;
        this.snapshots = snapshots;
    }

    /** Decodes the observation section of a batch (after the tests). */
    static Observer decode(ByteBuffer b, int memberCount) {
        int n = Wire.getCount(b, 8);
        int[] members = new int[n];
        Path[][] paths = new Path[n][];
        for (int t = 0; t < n; t++) {
            members[t] = b.getInt();
            if (members[t] < 0 || members[t] >= memberCount) {
                throw new IllegalArgumentException("observed member " + members[t] + " is not in the table");
            }
            int p = Wire.getCount(b, 5);
            paths[t] = new Path[p];
            for (int i = 0; i < p; i++) {
                Path path = new Path();
                path.root = b.get() & 0xff;
                path.argument = b.get() & 0xff;
                int s = Wire.getCount(b, 1);
                path.kinds = new int[s];
                path.fields = new String[s];
                path.indices = new int[s];
                for (int k = 0; k < s; k++) {
                    path.kinds[k] = b.get() & 0xff;
                    if (path.kinds[k] == STEP_FIELD) {
                        path.fields[k] = Wire.getString(b);
                    } else if (path.kinds[k] == STEP_INDEX) {
                        path.indices[k] = b.getInt();
                    } else if (path.kinds[k] != STEP_LENGTH) {
                        throw new IllegalArgumentException("unknown path step " + path.kinds[k]);
                    }
                }
                paths[t][i] = path;
            }
        }
        int flags = b.get();
        boolean trace = (flags & FLAG_TRACE) != 0;
        Snapshots snapshots = (flags & FLAG_SNAPSHOT) != 0 ? Snapshots.decode(b, memberCount) : null;
        return new Observer(members, paths, trace, snapshots);
    }

    static final int FLAG_TRACE = 1;
    static final int FLAG_SNAPSHOT = 2;

    void startTest() {
        calls.clear();
        values.clear();
        ids.clear();
        traces.clear();
        truncated.clear();
        tracingCall = -1;
        if (snapshots != null) {
            snapshots.startTest();
        }
    }

    /** After a statement's call returned or threw: ends its trace, if it was traced. */
    void afterCall() {
        if (tracingCall < 0) {
            return;
        }
        try {
            traces.set(tracingCall, rivet.runtime.Probes.stopTrace());
            truncated.set(tracingCall, rivet.runtime.Probes.traceTruncated());
        } catch (LinkageError e) {
            // Not instrumented: no trace.
        }
        tracingCall = -1;
    }

    /** Observes a call of `member` by statement `at`, if it is a target. */
    void call(int member, int at, Object receiver, Object[] args) {
        if (snapshots != null) {
            snapshots.call(member, at, receiver, args);
        }
        for (int t = 0; t < members.length; t++) {
            if (members[t] != member) {
                continue;
            }
            Path[] ps = paths[t];
            Object[] read = new Object[ps.length];
            for (int i = 0; i < ps.length; i++) {
                try {
                    read[i] = read(ps[i], receiver, args);
                } catch (Throwable e) {
                    read[i] = UNDEFINED;
                }
            }
            calls.add(new int[] {at, t});
            values.add(read);
            traces.add(NO_TRACE);
            truncated.add(Boolean.FALSE);
            if (trace && tracingCall < 0) {
                try {
                    rivet.runtime.Probes.startTrace();
                    tracingCall = calls.size() - 1;
                } catch (LinkageError e) {
                    // Not instrumented: no trace.
                }
            }
        }
    }

    private static Object read(Path p, Object receiver, Object[] args) throws Exception {
        Object v;
        if (p.root == ROOT_RECEIVER) {
            if (receiver == null) {
                return UNDEFINED;
            }
            v = receiver;
        } else {
            if (args == null || p.argument >= args.length) {
                return UNDEFINED;
            }
            v = args[p.argument];
        }
        for (int k = 0; k < p.kinds.length; k++) {
            if (v == null || v == UNDEFINED) {
                return UNDEFINED;
            }
            switch (p.kinds[k]) {
                case STEP_FIELD: {
                    Field f = field(v.getClass(), p.fields[k]);
                    if (f == null) {
                        return UNDEFINED;
                    }
                    v = Peek.get(f, v);
                    break;
                }
                case STEP_INDEX:
                    if (!v.getClass().isArray() || p.indices[k] < 0 || p.indices[k] >= Array.getLength(v)) {
                        return UNDEFINED;
                    }
                    v = Array.get(v, p.indices[k]);
                    break;
                default:
                    if (!v.getClass().isArray()) {
                        return UNDEFINED;
                    }
                    v = Array.getLength(v);
                    break;
            }
        }
        return v;
    }

    /** The instance field `name` of `c` or a superclass, made accessible; null if none. */
    private static Field field(Class<?> c, String name) {
        Map<String, Field> byName = FIELDS.get(c);
        if (byName == null) {
            byName = new HashMap<String, Field>();
            FIELDS.put(c, byName);
        }
        if (byName.containsKey(name)) {
            return byName.get(name);
        }
        Field found = null;
        for (Class<?> k = c; k != null && found == null; k = k.getSuperclass()) {
            for (Field f : k.getDeclaredFields()) {
                if (f.getName().equals(name) && !java.lang.reflect.Modifier.isStatic(f.getModifiers())) {
                    found = Peek.open(f) ? f : null;
                    break;
                }
            }
        }
        byName.put(name, found);
        return found;
    }

    /** Writes the observed calls of the current test, then its snapshots (if asked for). */
    void write(Wire.Out out) {
        writeCalls(out);
        if (snapshots != null) {
            snapshots.write(out);
        }
    }

    private void writeCalls(Wire.Out out) {
        out.u32(calls.size());
        for (int c = 0; c < calls.size(); c++) {
            int[] call = calls.get(c);
            Object[] read = values.get(c);
            out.u32(call[0]);
            out.u32(call[1]);
            out.u32(read.length);
            for (Object v : read) {
                value(out, v);
            }
            out.u8(truncated.get(c) ? 1 : 0);
            int[] t = traces.get(c);
            out.u32(t.length);
            for (int p : t) {
                out.u32(p);
            }
        }
    }

    private void value(Wire.Out out, Object v) {
        if (v == UNDEFINED) {
            out.u8(OBS_UNDEFINED);
        } else if (v == null) {
            out.u8(OBS_NULL);
        } else if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
            out.u8(OBS_INT);
            out.u64(((Number) v).longValue());
        } else if (v instanceof Boolean) {
            out.u8(OBS_INT);
            out.u64(((Boolean) v) ? 1 : 0);
        } else if (v instanceof Character) {
            out.u8(OBS_INT);
            out.u64((Character) v);
        } else if (v instanceof Float) {
            // The raw bits: NaN payloads and -0.0 exactly as the field holds them.
            out.u8(OBS_FLOAT);
            out.u32(Float.floatToRawIntBits((Float) v));
        } else if (v instanceof Double) {
            out.u8(OBS_DOUBLE);
            out.u64(Double.doubleToRawLongBits((Double) v));
        } else {
            Integer id = ids.get(v);
            if (id == null) {
                id = ids.size() + 1;
                ids.put(v, id);
            }
            out.u8(OBS_OBJECT);
            out.u32(id);
            out.str(v.getClass().getName());
        }
    }
}
