package rivet.worker;

import java.io.InputStream;
import java.io.PrintStream;
import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.IdentityHashMap;
import rivet.runtime.ExitRequested;
import rivet.runtime.Exits;
import rivet.runtime.Overrun;
import rivet.runtime.Probes;
import rivet.runtime.Sandbox;
import rivet.runtime.SandboxRefused;
import rivet.runtime.Seeds;
import rivet.runtime.Statics;

/**
 * Runs one test case by reflection and encodes its result frame: per statement its outcome (a
 * value summary or the thrown exception; statements after an exception are not run), the probes
 * touched, the duration and the number of threads left behind.
 */
final class Runner {
    private static final String UNRUNNABLE = "rivet.worker.Unrunnable";
    private static final String EXIT_REQUESTED = "rivet.runtime.ExitRequested";
    private static final String SANDBOX_REFUSED = "rivet.runtime.SandboxRefused";

    private final Members members;
    private final PrintStream sink;
    private final InputStream emptyIn;
    private final ClassLoader loader;
    private final PrintStream log;
    private final int threadBaseline;
    private final IdentityHashMap<Object, Integer> identities = new IdentityHashMap<Object, Integer>();
    final Deadline deadline = new Deadline();
    private boolean probesBroken;
    private boolean sandboxMissing;
    private boolean staticsMissing;
    /** Set for runs that must see static state carry over from test to test, as JUnit does. */
    private static final boolean KEEP_STATICS = Boolean.getBoolean("rivet.keepStatics");

    Runner(Members members, PrintStream sink, InputStream emptyIn, ClassLoader loader, PrintStream log, int threadBaseline) {
        this.members = members;
        this.sink = sink;
        this.emptyIn = emptyIn;
        this.loader = loader;
        this.log = log;
        this.threadBaseline = threadBaseline;
    }

    void run(Batch batch, int index, Wire.Out out) {
        Batch.Statement[] statements = batch.tests[index];
        int n = statements.length;
        Object[] values = new Object[n];
        Class<?>[] types = new Class<?>[n];
        Throwable thrown = null;
        int ran = 0;
        resetStatics();
        resetProbes();
        Exits.reset();
        resetSandbox();
        if (batch.observer != null) {
            batch.observer.startTest();
        }
        if (!sandboxMissing) {
            WriteWatch.open();
        }
        long start = System.nanoTime();
        deadline.arm();
        for (; ran < n; ran++) {
            try {
                values[ran] = execute(batch, statements[ran], values, types, ran);
            } catch (Throwable t) {
                thrown = t;
            }
            if (Exits.requested() != null && !(thrown instanceof ExitRequested)) {
                thrown = new CaughtExit(Exits.requested());
            }
            String refused = sandboxRefused();
            if (refused != null && !(thrown instanceof SandboxRefused)) {
                thrown = new CaughtRefusal(refused);
            }
            String denied = thrown == null || thrown instanceof SandboxRefused ? null : osDenied(thrown, 0);
            if (denied != null) {
                // The OS confinement stopped what the interception did not see: outside the
                // worker the same call would have gone through (and done its damage).
                thrown = new CaughtRefusal("an operation the OS confinement denied: " + denied);
            }
            if (thrown != null) {
                break;
            }
        }
        long duration = System.nanoTime() - start;
        if (deadline.disarm(duration) && !(thrown instanceof Overrun && !KEEP_STATICS)) {
            // The code under test caught the Overrun (a class initializer may have failed on
            // it), or static state carries over: this JVM is not to be trusted with more tests.
            ran = Math.min(ran, n - 1);
            thrown = new OverrunCaught();
        }
        WriteWatch.close();
        // What the watch refused after the last statement's check (a thread the test started).
        if (thrown == null && n > 0 && ran == n && sandboxRefused() != null) {
            ran = n - 1;
            thrown = new CaughtRefusal(sandboxRefused());
        }
        Scratch.clear();
        String stray = WorkDir.sweep();
        if (stray != null && thrown == null) {
            // A write the interception did not see: in a developer's project directory it
            // would have left this file, so the test is refused as an intercepted write is.
            ran = Math.min(ran, n - 1);
            thrown = new CaughtRefusal("write to " + stray + " (the working directory)");
        }
        restoreEnvironment();

        out.reset();
        out.u8(Wire.RESP_RESULT);
        out.u32(batch.id);
        out.u32(index);
        out.u64(duration);
        out.u32(Math.max(0, Thread.activeCount() - threadBaseline));
        out.u32(n);
        identities.clear();
        for (int i = 0; i < n; i++) {
            if (i < ran) {
                out.u8(Wire.OUT_NORMAL);
                summary(out, values[i], types[i]);
            } else if (i == ran && thrown != null) {
                out.u8(Wire.OUT_THREW);
                exception(out, thrown);
            } else {
                out.u8(Wire.OUT_NOT_RUN);
            }
        }
        probes(out);
        seeds(out);
        if (batch.observer != null) {
            batch.observer.write(out);
        }
    }

    /**
     * The message of a file-system error the OS confinement caused (permission denied, a
     * read-only file system) in `t`, its causes or its suppressed exceptions; null if none.
     */
    private static String osDenied(Throwable t, int depth) {
        if (t == null || depth > 16) {
            return null;
        }
        String m;
        try {
            m = String.valueOf(t.getMessage());
        } catch (Throwable e) {
            m = "";
        }
        boolean fileError = t instanceof java.io.IOException || t instanceof java.io.UncheckedIOException;
        if (t instanceof java.nio.file.AccessDeniedException
                || (fileError && (m.contains("Permission denied") || m.contains("Read-only file system")
                        || m.contains("Operation not permitted")))) {
            return t.getClass().getName() + ": " + m;
        }
        String inner = osDenied(t.getCause() == t ? null : t.getCause(), depth + 1);
        if (inner != null) {
            return inner;
        }
        for (Throwable s : t.getSuppressed()) {
            inner = osDenied(s, depth + 1);
            if (inner != null) {
                return inner;
            }
        }
        if (t instanceof Iterable) {
            // IOExceptionList and the like hold their causes as a list.
            try {
                for (Object o : (Iterable<?>) t) {
                    inner = o instanceof Throwable ? osDenied((Throwable) o, depth + 1) : null;
                    if (inner != null) {
                        return inner;
                    }
                }
            } catch (RuntimeException e) {
                return null;
            }
        }
        return null;
    }

    /** An exit request the code under test caught: reported as the statement's exception. */
    private static final class CaughtExit extends Throwable {
        private static final long serialVersionUID = 1L;

        CaughtExit(int status) {
            super("exit(" + status + ") requested by the code under test, which caught the ExitRequested", null, false, false);
        }
    }

    /** An overrun after which the JVM should be replaced (`rivet_worker`'s `OVERRUN_CAUGHT`). */
    private static final class OverrunCaught extends Throwable {
        private static final long serialVersionUID = 1L;

        OverrunCaught() {
            super("the test ran past its time limit, and the code under test caught the Overrun", null, false, false);
        }
    }

    /** A sandbox refusal the code under test caught: reported as the statement's exception. */
    private static final class CaughtRefusal extends Throwable {
        private static final long serialVersionUID = 1L;

        CaughtRefusal(String what) {
            super("refused by Rivet's sandbox: " + what + " (the code under test caught the SandboxRefused)", null, false, false);
        }
    }

    /** The sandbox's last refusal, or null (also when the runtime is not on the classpath). */
    private String sandboxRefused() {
        if (sandboxMissing) {
            return null;
        }
        try {
            return Sandbox.refused();
        } catch (LinkageError e) {
            sandboxMissing = true;
            return null;
        }
    }

    /** A fresh class state: the classes the last tests touched are reset. */
    private void resetStatics() {
        if (KEEP_STATICS || staticsMissing) {
            return;
        }
        try {
            if (Statics.resetTouched() > 0) {
                // Initializers that ran again may have replaced streams or the context loader.
                restoreEnvironment();
            }
        } catch (LinkageError e) {
            staticsMissing = true;
        }
    }

    /**
     * Marks the class of static field `f` touched: a test's own read of a constant or write of a
     * static field goes through reflection, not through the instrumented code that marks it,
     * and the object a constant holds can change (a cache filled by a call on
     * `Fraction.TWO_THIRDS` must not be there for the next test).
     */
    private void touched(Field f) {
        if (KEEP_STATICS || staticsMissing || !Modifier.isStatic(f.getModifiers())) {
            return;
        }
        try {
            Statics.touch(f.getDeclaringClass());
        } catch (LinkageError e) {
            staticsMissing = true;
        }
    }

    private void resetSandbox() {
        if (!sandboxMissing) {
            try {
                Sandbox.reset();
            } catch (LinkageError e) {
                sandboxMissing = true;
            }
        }
    }

    private Object execute(Batch batch, Batch.Statement s, Object[] values, Class<?>[] types, int at) throws Throwable {
        switch (s.tag) {
            case Wire.ST_PRIMITIVE:
                types[at] = primitiveClass(s.type);
                return s.value;
            case Wire.ST_STRING:
                types[at] = String.class;
                return s.text;
            case Wire.ST_NULL:
                types[at] = Object.class;
                return null;
            case Wire.ST_ARRAY: {
                types[at] = Object.class;
                Class<?> component = members.classOfDescriptor(s.text);
                Object array = Array.newInstance(component, s.args.length);
                for (int i = 0; i < s.args.length; i++) {
                    try {
                        Array.set(array, i, Members.coerce(values[s.args[i]], component));
                    } catch (IllegalArgumentException e) {
                        throw new Unrunnable("element " + i + " of " + s.text + "[]: " + e.getMessage());
                    }
                }
                return array;
            }
            case Wire.ST_CONSTRUCT: {
                types[at] = Object.class;
                Constructor<?> k = (Constructor<?>) resolve(batch, s.member, false);
                Object[] args = arguments(k.getParameterTypes(), s.args, values);
                if (batch.observer != null) {
                    batch.observer.call(s.member, at, null, args);
                }
                try {
                    return k.newInstance(args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                } catch (IllegalArgumentException e) {
                    throw new Unrunnable(k + ": " + e.getMessage());
                } catch (IllegalAccessException e) {
                    throw new Unrunnable(k + ": " + e.getMessage());
                } catch (InstantiationException e) {
                    throw new Unrunnable(k + ": " + e.getMessage());
                } finally {
                    if (batch.observer != null) {
                        batch.observer.afterCall();
                    }
                }
            }
            case Wire.ST_CALL: {
                Method m = (Method) resolve(batch, s.member, false);
                types[at] = m.getReturnType();
                Object receiver = null;
                if (!Modifier.isStatic(m.getModifiers())) {
                    if (s.receiver == Wire.NONE) {
                        throw new Unrunnable(m + " needs a receiver");
                    }
                    receiver = values[s.receiver];
                    if (receiver == null) {
                        throw new NullPointerException("Cannot invoke \"" + m.getName() + "\" on null");
                    }
                }
                Object[] args = arguments(m.getParameterTypes(), s.args, values);
                if (batch.observer != null) {
                    batch.observer.call(s.member, at, receiver, args);
                }
                try {
                    return m.invoke(receiver, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                } catch (IllegalArgumentException e) {
                    throw new Unrunnable(m + ": " + e.getMessage());
                } catch (IllegalAccessException e) {
                    throw new Unrunnable(m + ": " + e.getMessage());
                } finally {
                    if (batch.observer != null) {
                        batch.observer.afterCall();
                    }
                }
            }
            case Wire.ST_FIELD_WRITE: {
                types[at] = void.class;
                Field f = (Field) resolve(batch, s.member, true);
                if (Modifier.isFinal(f.getModifiers())) {
                    throw new Unrunnable(f + " is final");
                }
                Object receiver = null;
                touched(f);
                if (!Modifier.isStatic(f.getModifiers())) {
                    if (s.receiver == Wire.NONE) {
                        throw new Unrunnable(f + " needs a receiver");
                    }
                    receiver = values[s.receiver];
                    if (receiver == null) {
                        throw new NullPointerException("Cannot assign field \"" + f.getName() + "\" on null");
                    }
                }
                try {
                    f.set(receiver, Members.coerce(values[s.args[0]], f.getType()));
                } catch (IllegalArgumentException e) {
                    throw new Unrunnable(f + ": " + e.getMessage());
                } catch (IllegalAccessException e) {
                    throw new Unrunnable(f + ": " + e.getMessage());
                }
                return null;
            }
            case Wire.ST_CONSTANT: {
                Field f = (Field) resolve(batch, s.member, true);
                if (!Modifier.isStatic(f.getModifiers())) {
                    throw new Unrunnable(f + " is not static");
                }
                types[at] = f.getType();
                touched(f);
                try {
                    return f.get(null);
                } catch (IllegalAccessException e) {
                    throw new Unrunnable(f + ": " + e.getMessage());
                }
            }
            case Wire.ST_SCRATCH:
                return Scratch.value(s, types, at);
            case Wire.ST_CLASS_LITERAL:
                types[at] = Class.class;
                return "V".equals(s.text) ? void.class : members.classOfDescriptor(s.text);
            case Wire.ST_LAMBDA: {
                Class<?> iface = members.classOfDescriptor("L" + s.text + ";");
                types[at] = iface;
                Object captured = s.body == 0 ? values[s.args[0]] : null;
                return Lambdas.make(iface, batch.names[s.member], batch.descriptors[s.member], s.body, captured);
            }
            default:
                throw new Unrunnable("unknown statement tag " + s.tag);
        }
    }

    private Object resolve(Batch batch, int m, boolean field) throws Unrunnable {
        Object r = batch.resolved[m];
        if (r == null) {
            try {
                r = members.resolve(batch.owners[m], batch.names[m], batch.descriptors[m], field);
            } catch (Unrunnable e) {
                r = e;
            }
            batch.resolved[m] = r;
        }
        if (r instanceof Unrunnable) {
            throw (Unrunnable) r;
        }
        return r;
    }

    private static Object[] arguments(Class<?>[] params, int[] refs, Object[] values) throws Unrunnable {
        if (params.length != refs.length) {
            throw new Unrunnable("expected " + params.length + " arguments, got " + refs.length);
        }
        Object[] args = new Object[refs.length];
        for (int i = 0; i < refs.length; i++) {
            args[i] = Members.coerce(values[refs[i]], params[i]);
        }
        return args;
    }

    private static Class<?> primitiveClass(char type) {
        switch (type) {
            case 'Z': return boolean.class;
            case 'B': return byte.class;
            case 'C': return char.class;
            case 'S': return short.class;
            case 'I': return int.class;
            case 'J': return long.class;
            case 'F': return float.class;
            default: return double.class;
        }
    }

    /** Undoes what the code under test may have changed in the harness's thread and streams. */
    private void restoreEnvironment() {
        Thread.interrupted();
        System.setOut(sink);
        System.setErr(sink);
        System.setIn(emptyIn);
        Thread.currentThread().setContextClassLoader(loader);
    }

    private void summary(Wire.Out out, Object v, Class<?> type) {
        if (type == void.class) {
            out.u8(Wire.V_VOID);
        } else if (type.isPrimitive()) {
            if (type == boolean.class) {
                out.u8(Wire.V_BOOLEAN);
                out.u8(((Boolean) v) ? 1 : 0);
            } else if (type == byte.class) {
                out.u8(Wire.V_BYTE);
                out.u8((Byte) v);
            } else if (type == char.class) {
                out.u8(Wire.V_CHAR);
                out.u16((Character) v);
            } else if (type == short.class) {
                out.u8(Wire.V_SHORT);
                out.u16((Short) v);
            } else if (type == int.class) {
                out.u8(Wire.V_INT);
                out.u32((Integer) v);
            } else if (type == long.class) {
                out.u8(Wire.V_LONG);
                out.u64((Long) v);
            } else if (type == float.class) {
                out.u8(Wire.V_FLOAT);
                out.u32(Float.floatToRawIntBits((Float) v));
            } else {
                out.u8(Wire.V_DOUBLE);
                out.u64(Double.doubleToRawLongBits((Double) v));
            }
        } else if (v == null) {
            out.u8(Wire.V_NULL);
        } else if (v instanceof String) {
            out.u8(Wire.V_STRING);
            out.str((String) v);
        } else {
            Integer id = identities.get(v);
            if (id == null) {
                id = identities.size();
                identities.put(v, id);
            }
            out.u8(Wire.V_OBJECT);
            out.u32(id);
            out.str(v.getClass().getName());
        }
    }

    private static void exception(Wire.Out out, Throwable t) {
        String message;
        String name;
        if (t instanceof CaughtExit) {
            name = EXIT_REQUESTED;
            message = t.getMessage();
        } else if (t instanceof CaughtRefusal) {
            name = SANDBOX_REFUSED;
            message = t.getMessage();
        } else if (t instanceof Unrunnable) {
            name = UNRUNNABLE;
            message = t.getMessage();
        } else {
            name = t.getClass().getName();
            try {
                message = t.getMessage();
            } catch (Throwable e) {
                message = null;
            }
        }
        out.str(name);
        if (message == null) {
            out.u8(0);
        } else {
            out.u8(1);
            out.str(message);
        }
    }

    private void resetProbes() {
        if (probesBroken) {
            return;
        }
        try {
            Probes.reset();
            Seeds.reset();
        } catch (LinkageError e) {
            brokenProbes(e);
        }
    }

    /** The strings the code under test compared or parsed (none when the runtime is absent). */
    private void seeds(Wire.Out out) {
        int mark = out.pos;
        if (!probesBroken) {
            try {
                int n = Seeds.count();
                out.u32(n);
                for (int i = 0; i < n; i++) {
                    out.str(Seeds.get(i));
                }
                return;
            } catch (LinkageError e) {
                brokenProbes(e);
            }
        }
        out.pos = mark;
        out.u32(0);
    }

    private void probes(Wire.Out out) {
        int mark = out.pos;
        if (!probesBroken) {
            try {
                int n = Probes.touchedCount();
                out.u32(n);
                for (int i = 0; i < n; i++) {
                    int p = Probes.touchedProbe(i);
                    out.u32(p);
                    out.u32(Probes.hitCount(p));
                    out.u64(Double.doubleToRawLongBits(Probes.distanceOf(p)));
                }
                return;
            } catch (LinkageError e) {
                brokenProbes(e);
            }
        }
        out.pos = mark;
        out.u32(0);
    }

    private void brokenProbes(LinkageError e) {
        probesBroken = true;
        log.println("rivet worker: rivet.runtime.Probes is unusable, reporting no coverage: " + e);
        log.flush();
    }
}
