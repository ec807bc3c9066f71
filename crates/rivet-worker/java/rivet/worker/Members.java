package rivet.worker;

import java.lang.reflect.AccessibleObject;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.HashMap;
import java.util.Map;

/**
 * Resolves classes and members by JVM internal name, member name and descriptor, with a cache per
 * worker (failures are cached too: the classpath does not change during a worker's life). Private
 * members never resolve: tests use what a test in the class's package may use (Rivet's generator
 * decides which; this is the last check). setAccessible stands in for the test's package, so that
 * package-private and protected members, and public members of non-public classes, can be called.
 */
final class Members {
    private final ClassLoader loader;
    private final Map<String, Object> cache = new HashMap<String, Object>();
    private final Map<String, Object> classes = new HashMap<String, Object>();

    Members(ClassLoader loader) {
        this.loader = loader;
    }

    /** A Constructor, Method or Field; throws Unrunnable when it cannot be used. */
    Object resolve(String owner, String name, String descriptor, boolean field) throws Unrunnable {
        String key = owner + '.' + name + (field ? ":" : "") + descriptor;
        Object r = cache.get(key);
        if (r == null) {
            try {
                r = lookUp(owner, name, descriptor, field);
            } catch (Unrunnable e) {
                r = e;
            } catch (LinkageError e) {
                r = new Unrunnable(e.getClass().getName() + ": " + e.getMessage());
            }
            cache.put(key, r);
        }
        if (r instanceof Unrunnable) {
            throw (Unrunnable) r;
        }
        return r;
    }

    private Object lookUp(String owner, String name, String descriptor, boolean field) throws Unrunnable {
        Class<?> c = classOfInternalName(owner);
        String where = owner.replace('/', '.') + "." + name + descriptor;
        if (field) {
            for (Class<?> k = c; k != null; k = k.getSuperclass()) {
                for (Field f : k.getDeclaredFields()) {
                    if (f.getName().equals(name) && descriptorOf(f.getType()).equals(descriptor)) {
                        return usable(f, f.getModifiers(), where);
                    }
                }
            }
            for (Field f : c.getFields()) {
                if (f.getName().equals(name) && descriptorOf(f.getType()).equals(descriptor)) {
                    return usable(f, f.getModifiers(), where);
                }
            }
            throw new Unrunnable("no field " + where);
        }
        if (name.equals("<init>")) {
            if (Modifier.isAbstract(c.getModifiers()) || c.isInterface()) {
                throw new Unrunnable(c.getName() + " is abstract: cannot construct it");
            }
            for (Constructor<?> k : c.getDeclaredConstructors()) {
                if (descriptorOf(k.getParameterTypes(), void.class).equals(descriptor)) {
                    return usable(k, k.getModifiers(), where);
                }
            }
            throw new Unrunnable("no constructor " + where);
        }
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            for (Method m : k.getDeclaredMethods()) {
                if (m.getName().equals(name) && descriptorOf(m.getParameterTypes(), m.getReturnType()).equals(descriptor)) {
                    return usable(m, m.getModifiers(), where);
                }
            }
        }
        for (Method m : c.getMethods()) {
            if (m.getName().equals(name) && descriptorOf(m.getParameterTypes(), m.getReturnType()).equals(descriptor)) {
                return usable(m, m.getModifiers(), where);
            }
        }
        throw new Unrunnable("no method " + where);
    }

    private static Object usable(AccessibleObject member, int modifiers, String where) throws Unrunnable {
        if (Modifier.isPrivate(modifiers)) {
            throw new Unrunnable(where + " is private");
        }
        try {
            member.setAccessible(true);
        } catch (RuntimeException e) {
            // A module that does not open its package: public members still work without it.
        }
        return member;
    }

    /** The class of an internal name (`a/b/C`) or an array descriptor (`[I`). */
    Class<?> classOfInternalName(String internal) throws Unrunnable {
        Object c = classes.get(internal);
        if (c == null) {
            try {
                c = Class.forName(internal.replace('/', '.'), false, loader);
            } catch (ClassNotFoundException e) {
                c = new Unrunnable("class not found: " + internal);
            } catch (LinkageError e) {
                c = new Unrunnable(e.getClass().getName() + " loading " + internal + ": " + e.getMessage());
            }
            classes.put(internal, c);
        }
        if (c instanceof Unrunnable) {
            throw (Unrunnable) c;
        }
        return (Class<?>) c;
    }

    /** The class of a field descriptor (`I`, `Ljava/lang/String;`, `[[J`). */
    Class<?> classOfDescriptor(String d) throws Unrunnable {
        if (d.length() == 1) {
            switch (d.charAt(0)) {
                case 'Z': return boolean.class;
                case 'B': return byte.class;
                case 'C': return char.class;
                case 'S': return short.class;
                case 'I': return int.class;
                case 'J': return long.class;
                case 'F': return float.class;
                case 'D': return double.class;
                default: break;
            }
        } else if (d.startsWith("L") && d.endsWith(";")) {
            return classOfInternalName(d.substring(1, d.length() - 1));
        } else if (d.startsWith("[")) {
            return classOfInternalName(d);
        }
        throw new Unrunnable("bad field descriptor " + d);
    }

    static String descriptorOf(Class<?> c) {
        if (c.isPrimitive()) {
            if (c == int.class) return "I";
            if (c == long.class) return "J";
            if (c == boolean.class) return "Z";
            if (c == byte.class) return "B";
            if (c == char.class) return "C";
            if (c == short.class) return "S";
            if (c == float.class) return "F";
            if (c == double.class) return "D";
            return "V";
        }
        if (c.isArray()) {
            return c.getName().replace('.', '/');
        }
        return "L" + c.getName().replace('.', '/') + ";";
    }

    static String descriptorOf(Class<?>[] params, Class<?> ret) {
        StringBuilder sb = new StringBuilder("(");
        for (Class<?> p : params) {
            sb.append(descriptorOf(p));
        }
        return sb.append(')').append(descriptorOf(ret)).toString();
    }

    /**
     * Converts a boxed primitive to the primitive type `t` as a Java cast would (widening or
     * narrowing); other values are returned as they are and reflection checks them.
     */
    static Object coerce(Object v, Class<?> t) {
        if (v == null || !t.isPrimitive() || t == boolean.class) {
            return v;
        }
        if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            if (t == double.class) return d;
            if (t == float.class) return (float) d;
            if (t == long.class) return (long) d;
            if (t == int.class) return (int) d;
            if (t == short.class) return (short) (int) d;
            if (t == byte.class) return (byte) (int) d;
            if (t == char.class) return (char) (int) d;
            return v;
        }
        long l;
        if (v instanceof Character) {
            l = (Character) v;
        } else if (v instanceof Number) {
            l = ((Number) v).longValue();
        } else {
            return v;
        }
        if (t == int.class) return (int) l;
        if (t == long.class) return l;
        if (t == double.class) return (double) l;
        if (t == float.class) return (float) l;
        if (t == short.class) return (short) l;
        if (t == byte.class) return (byte) l;
        if (t == char.class) return (char) l;
        return v;
    }
}
