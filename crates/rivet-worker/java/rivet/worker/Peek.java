package rivet.worker;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.Map;

/**
 * Reads instance fields for observations and snapshots without opening any module: a field
 * of a class whose package is open to the class path (the code under test's own) through
 * reflection, a field of a JDK class (its packages are not open) through sun.misc.Unsafe,
 * which needs no JVM option. So the worker JVM runs with the options a developer's test JVM
 * has, and the code under test may reflect on exactly what it may reflect on there.
 */
final class Peek {
    private Peek() {}

    /** The offsets of the fields read through Unsafe. */
    private static final Map<Field, Long> OFFSETS = new HashMap<Field, Long>();

    private static final Object UNSAFE;
    private static final Method OFFSET;
    private static final Map<Class<?>, Method> GETTERS = new HashMap<Class<?>, Method>();

    static {
        Object unsafe = null;
        Method offset = null;
        try {
            Class<?> u = Class.forName("sun.misc.Unsafe");
            Field the = u.getDeclaredField("theUnsafe");
            the.setAccessible(true);
            unsafe = the.get(null);
            offset = u.getMethod("objectFieldOffset", Field.class);
            Class<?>[] types = {Object.class, boolean.class, byte.class, char.class, short.class,
                int.class, long.class, float.class, double.class};
            String[] names = {"getObject", "getBoolean", "getByte", "getChar", "getShort",
                "getInt", "getLong", "getFloat", "getDouble"};
            for (int i = 0; i < types.length; i++) {
                GETTERS.put(types[i], u.getMethod(names[i], Object.class, long.class));
            }
        } catch (Throwable e) {
            unsafe = null;
            offset = null;
        }
        UNSAFE = unsafe;
        OFFSET = offset;
    }

    /** Makes `f` readable by `get`; false if it cannot be read. */
    static boolean open(Field f) {
        try {
            f.setAccessible(true);
            return true;
        } catch (RuntimeException closed) {
            // A package the class path may not reflect on: read it through Unsafe.
        }
        if (UNSAFE == null) {
            return false;
        }
        try {
            OFFSETS.put(f, (Long) OFFSET.invoke(UNSAFE, f));
            return true;
        } catch (Throwable e) {
            return false;
        }
    }

    /** The value of `f` (opened by `open`) in `o`, primitives boxed. */
    static Object get(Field f, Object o) throws IllegalAccessException {
        Long offset = OFFSETS.get(f);
        if (offset == null) {
            return f.get(o);
        }
        Class<?> type = f.getType();
        Method getter = GETTERS.get(type.isPrimitive() ? type : Object.class);
        try {
            return getter.invoke(UNSAFE, o, offset);
        } catch (Exception e) {
            throw new IllegalAccessException("cannot read " + f + ": " + e);
        }
    }
}
