package rivet.worker;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;

/**
 * The lambdas of generated tests: a proxy implementing a functional interface whose abstract
 * method returns a captured value, returns its first argument, does nothing, or throws, as the
 * emitted Java lambda does. Object's methods behave as a lambda's (identity equality); default
 * methods run their own code.
 */
final class Lambdas {
    /** The message of the exception a throwing lambda throws (Rust: LAMBDA_FAILURE). */
    static final String FAILURE = "thrown by a Rivet lambda";

    private static final int RETURNS = 0;
    private static final int IDENTITY = 1;
    private static final int NOTHING = 2;

    /** `InvocationHandler.invokeDefault` (Java 16+), null on older JVMs. */
    private static final Method INVOKE_DEFAULT = invokeDefault();

    private Lambdas() {}

    static Object make(Class<?> iface, String name, String descriptor, int body, Object captured)
            throws Unrunnable {
        if (!iface.isInterface()) {
            throw new Unrunnable(iface.getName() + " is not an interface");
        }
        int arity = arity(descriptor);
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.getDeclaringClass() == Object.class) {
                switch (method.getName()) {
                    case "equals": return proxy == args[0];
                    case "hashCode": return System.identityHashCode(proxy);
                    default: return iface.getName() + "$$Lambda";
                }
            }
            boolean target = Modifier.isAbstract(method.getModifiers()) && method.getName().equals(name)
                    && method.getParameterCount() == arity;
            if (!target) {
                if (method.isDefault() && INVOKE_DEFAULT != null) {
                    try {
                        return INVOKE_DEFAULT.invoke(null, proxy, method, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                }
                throw new AbstractMethodError(method.toString());
            }
            Class<?> returns = method.getReturnType();
            switch (body) {
                case RETURNS: return Members.coerce(captured, returns);
                case IDENTITY: return Members.coerce(args[0], returns);
                case NOTHING: return zero(returns);
                default: throw new IllegalStateException(FAILURE);
            }
        };
        ClassLoader loader = iface.getClassLoader() != null ? iface.getClassLoader() : Lambdas.class.getClassLoader();
        try {
            return Proxy.newProxyInstance(loader, new Class<?>[] {iface}, handler);
        } catch (IllegalArgumentException e) {
            throw new Unrunnable("lambda of " + iface.getName() + ": " + e.getMessage());
        }
    }

    /** What a `void` method or an empty body gives back: null, false or zero. */
    private static Object zero(Class<?> t) {
        if (!t.isPrimitive() || t == void.class) return null;
        if (t == boolean.class) return false;
        if (t == char.class) return (char) 0;
        return Members.coerce(0, t);
    }

    /** The number of parameters of a method descriptor. */
    static int arity(String descriptor) {
        int n = 0;
        int i = 1;
        while (i < descriptor.length() && descriptor.charAt(i) != ')') {
            char c = descriptor.charAt(i);
            if (c == '[') {
                i++;
                continue;
            }
            if (c == 'L') {
                i = descriptor.indexOf(';', i);
            }
            i++;
            n++;
        }
        return n;
    }

    private static Method invokeDefault() {
        try {
            return InvocationHandler.class.getMethod("invokeDefault", Object.class, Method.class, Object[].class);
        } catch (NoSuchMethodException e) {
            return null;
        }
    }
}
