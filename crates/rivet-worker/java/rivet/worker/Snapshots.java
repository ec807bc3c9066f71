package rivet.worker;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Snapshots, at calls of target members, of the objects reachable from the receiver and the
 * arguments (for invariants learned from real objects): breadth first, the fields of objects
 * of the packages asked for read up to a number of objects and a depth; other objects are
 * listed as references. A test keeps at most maxPerTest snapshots, a uniform sample of its
 * calls of targets (reservoir sampling, seeded the same for every test, so that a test always
 * keeps the same calls): the first calls of a test mostly see objects just built. Taking a
 * snapshot never changes the test's outcome: a field that cannot be read is undefined. Only
 * the harness reads; tests never use reflection.
 */
final class Snapshots {
    static final int V_UNDEFINED = 0;
    static final int V_NULL = 1;
    static final int V_INT = 2;
    static final int V_OBJECT = 3;
    static final int V_FLOAT = 4;
    static final int V_DOUBLE = 5;

    final int[] members;
    final String[] packages;
    final int maxObjects;
    final int maxDepth;
    final int maxPerTest;

    private static final Field[] UNREADABLE = new Field[0];
    private static final Map<Class<?>, Field[]> FIELDS = new HashMap<Class<?>, Field[]>();
    private static final Object UNDEFINED = new Object();

    /** A reference to an object of the snapshot, by id. */
    private static final class Ref {
        final int id;

        Ref(int id) {
            this.id = id;
        }
    }

    /** The classes of the current test's snapshots, in order of first sight. */
    private final Map<Class<?>, Integer> classIndex = new HashMap<Class<?>, Integer>();
    private final List<Class<?>> classes = new ArrayList<Class<?>>();
    /** Scratch buffer a snapshot is encoded in. */
    private final Wire.Out body = new Wire.Out();
    /** The current test's kept snapshots, encoded, with their statements. */
    private final List<byte[]> kept = new ArrayList<byte[]>();
    private final List<Integer> keptAt = new ArrayList<Integer>();
    /** Calls of targets in the current test so far. */
    private int calls;
    private long random;

    private Snapshots(int[] members, String[] packages, int maxObjects, int maxDepth, int maxPerTest) {
        this.members = members;
        this.packages = packages;
        this.maxObjects = maxObjects;
        this.maxDepth = maxDepth;
        this.maxPerTest = maxPerTest;
    }

    /** Decodes the snapshot part of an observation section. */
    static Snapshots decode(ByteBuffer b, int memberCount) {
        int n = Wire.getCount(b, 4);
        int[] members = new int[n];
        for (int i = 0; i < n; i++) {
            members[i] = b.getInt();
            if (members[i] < 0 || members[i] >= memberCount) {
                throw new IllegalArgumentException("snapshot member " + members[i] + " is not in the table");
            }
        }
        int p = Wire.getCount(b, 4);
        String[] packages = new String[p];
        for (int i = 0; i < p; i++) {
            packages[i] = Wire.getString(b);
        }
        int maxObjects = b.getInt();
        int maxDepth = b.getInt();
        int maxPerTest = b.getInt();
        return new Snapshots(members, packages, maxObjects, maxDepth, maxPerTest);
    }

    void startTest() {
        classIndex.clear();
        classes.clear();
        kept.clear();
        keptAt.clear();
        calls = 0;
        random = 0x9E3779B97F4A7C15L;
    }

    /** The next value of the test's generator in [0, bound) (xorshift). */
    private int nextInt(int bound) {
        random ^= random << 13;
        random ^= random >>> 7;
        random ^= random << 17;
        return (int) Long.remainderUnsigned(random, bound);
    }

    /** Takes a snapshot at a call of `member` by statement `at`, if it is a target. */
    void call(int member, int at, Object receiver, Object[] args) {
        if (maxPerTest <= 0) {
            return;
        }
        int target = -1;
        for (int t = 0; t < members.length; t++) {
            if (members[t] == member) {
                target = t;
                break;
            }
        }
        if (target < 0) {
            return;
        }
        calls++;
        int slot;
        if (kept.size() < maxPerTest) {
            slot = kept.size();
        } else {
            slot = nextInt(calls);
            if (slot >= maxPerTest) {
                return;
            }
        }
        body.reset();
        try {
            take(at, target, receiver, args);
        } catch (Throwable e) {
            return;
        }
        byte[] bytes = Arrays.copyOfRange(body.buf, 4, body.pos);
        if (slot == kept.size()) {
            kept.add(bytes);
            keptAt.add(at);
        } else {
            kept.set(slot, bytes);
            keptAt.set(slot, at);
        }
    }

    private void take(int at, int target, Object receiver, Object[] args) {
        IdentityHashMap<Object, Integer> ids = new IdentityHashMap<Object, Integer>();
        List<Object> objects = new ArrayList<Object>();
        List<Object[]> values = new ArrayList<Object[]>();
        ArrayDeque<Object> queue = new ArrayDeque<Object>();
        IdentityHashMap<Object, Integer> depth = new IdentityHashMap<Object, Integer>();
        boolean[] truncated = {false};
        int[] read = {0};
        Object rootReceiver = receiver == null ? null : capture(receiver, 0, ids, objects, values, queue, depth, truncated, read);
        Object[] rootArgs = new Object[args == null ? 0 : args.length];
        for (int i = 0; i < rootArgs.length; i++) {
            rootArgs[i] = capture(args[i], 0, ids, objects, values, queue, depth, truncated, read);
        }
        while (!queue.isEmpty()) {
            Object o = queue.poll();
            int d = depth.get(o);
            Field[] fields = fields(o.getClass());
            Object[] vs = new Object[fields.length];
            for (int i = 0; i < fields.length; i++) {
                Object v;
                try {
                    v = Peek.get(fields[i], o);
                } catch (Throwable e) {
                    vs[i] = UNDEFINED;
                    continue;
                }
                vs[i] = capture(v, d + 1, ids, objects, values, queue, depth, truncated, read);
            }
            values.set(ids.get(o) - 1, vs);
        }
        body.u32(at);
        body.u32(target);
        body.u8(receiver == null ? 0 : 1);
        if (receiver != null) {
            value(rootReceiver);
        }
        body.u32(rootArgs.length);
        for (Object v : rootArgs) {
            value(v);
        }
        body.u32(objects.size());
        for (int i = 0; i < objects.size(); i++) {
            Object o = objects.get(i);
            body.u32(i + 1);
            body.u32(classOf(o.getClass()));
            Object[] vs = values.get(i);
            body.u8(vs == null ? 0 : 1);
            if (vs != null) {
                for (Object v : vs) {
                    value(v);
                }
            }
        }
        body.u8(truncated[0] ? 1 : 0);
    }

    /**
     * A value as the snapshot keeps it: primitives boxed, objects as references (listed, and
     * queued to have their fields read when they are of the packages asked for and within the
     * bounds).
     */
    private Object capture(Object v, int d, IdentityHashMap<Object, Integer> ids, List<Object> objects,
                           List<Object[]> values, ArrayDeque<Object> queue, IdentityHashMap<Object, Integer> depth,
                           boolean[] truncated, int[] read) {
        if (v == null || v instanceof Number || v instanceof Boolean || v instanceof Character) {
            return v;
        }
        Integer id = ids.get(v);
        if (id != null) {
            return new Ref(id);
        }
        objects.add(v);
        values.add(null);
        id = objects.size();
        ids.put(v, id);
        if (readable(v.getClass())) {
            if (d <= maxDepth && read[0] < maxObjects) {
                read[0]++;
                depth.put(v, d);
                queue.add(v);
            } else {
                truncated[0] = true;
            }
        }
        return new Ref(id);
    }

    private boolean readable(Class<?> c) {
        if (c.isArray() || c.isPrimitive()) {
            return false;
        }
        String name = c.getName();
        int dot = name.lastIndexOf('.');
        String pkg = dot < 0 ? "" : name.substring(0, dot);
        for (String p : packages) {
            if (p.equals(pkg)) {
                return fields(c) != UNREADABLE;
            }
        }
        return false;
    }

    /** The instance fields of `c` and its superclasses (its own first), made accessible. */
    private static Field[] fields(Class<?> c) {
        Field[] cached = FIELDS.get(c);
        if (cached != null) {
            return cached;
        }
        List<Field> out = new ArrayList<Field>();
        Field[] result;
        try {
            for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
                for (Field f : k.getDeclaredFields()) {
                    if (!Modifier.isStatic(f.getModifiers())) {
                        if (!Peek.open(f)) {
                            throw new IllegalStateException("unreadable " + f);
                        }
                        out.add(f);
                    }
                }
            }
            result = out.toArray(new Field[0]);
        } catch (RuntimeException e) {
            result = UNREADABLE;
        }
        FIELDS.put(c, result);
        return result;
    }

    private int classOf(Class<?> c) {
        Integer i = classIndex.get(c);
        if (i == null) {
            i = classes.size();
            classes.add(c);
            classIndex.put(c, i);
        }
        return i;
    }

    private void value(Object v) {
        if (v == UNDEFINED) {
            body.u8(V_UNDEFINED);
        } else if (v == null) {
            body.u8(V_NULL);
        } else if (v instanceof Ref) {
            body.u8(V_OBJECT);
            body.u32(((Ref) v).id);
        } else if (v instanceof Float) {
            body.u8(V_FLOAT);
            body.u32(Float.floatToRawIntBits((Float) v));
        } else if (v instanceof Double) {
            body.u8(V_DOUBLE);
            body.u64(Double.doubleToRawLongBits((Double) v));
        } else if (v instanceof Boolean) {
            body.u8(V_INT);
            body.u64(((Boolean) v) ? 1 : 0);
        } else if (v instanceof Character) {
            body.u8(V_INT);
            body.u64((Character) v);
        } else if (v instanceof Number) {
            body.u8(V_INT);
            body.u64(((Number) v).longValue());
        } else {
            body.u8(V_UNDEFINED);
        }
    }

    /** Writes the current test's snapshots: the class table, then the snapshots. */
    void write(Wire.Out out) {
        out.u32(classes.size());
        for (Class<?> c : classes) {
            out.str(c.getName());
            Field[] fs = readable(c) ? fields(c) : UNREADABLE;
            out.u32(fs.length);
            for (Field f : fs) {
                out.str(f.getDeclaringClass().getName());
                out.str(f.getName());
                out.str(descriptor(f.getType()));
            }
        }
        // In call order.
        Integer[] order = new Integer[kept.size()];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Integer.compare(keptAt.get(a), keptAt.get(b)));
        out.u32(kept.size());
        for (Integer i : order) {
            out.bytes(kept.get(i));
        }
    }

    static String descriptor(Class<?> c) {
        if (c.isArray()) {
            return c.getName().replace('.', '/');
        }
        if (c == int.class) {
            return "I";
        } else if (c == long.class) {
            return "J";
        } else if (c == boolean.class) {
            return "Z";
        } else if (c == char.class) {
            return "C";
        } else if (c == short.class) {
            return "S";
        } else if (c == byte.class) {
            return "B";
        } else if (c == float.class) {
            return "F";
        } else if (c == double.class) {
            return "D";
        } else if (c == void.class) {
            return "V";
        }
        return "L" + c.getName().replace('.', '/') + ";";
    }
}
