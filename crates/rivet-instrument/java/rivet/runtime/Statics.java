package rivet.runtime;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A fresh class state for every test, as EvoSuite's static reset: instrumented classes with
 * static state register here when they are initialized, code that reads or writes their
 * static fields marks them touched, and {@link #resetTouched()} (the worker calls it before
 * each test) gives every touched class its initial state again: its static fields are set to
 * their defaults and its static initializer runs again, in the order the classes were first
 * initialized.
 */
public final class Statics {
    private Statics() {}

    /** Registered classes in initialization order, with their reset methods. */
    private static final List<Class<?>> CLASSES = new ArrayList<Class<?>>();
    private static final List<Method> RESETS = new ArrayList<Method>();
    /** Touched since the last reset; added to on every marked static access, so not locked. */
    private static final Set<Class<?>> TOUCHED =
            java.util.Collections.newSetFromMap(new ConcurrentHashMap<Class<?>, Boolean>());

    /** Called at the end of an instrumented class's static initializer. */
    public static synchronized void initialized(Class<?> c) {
        if (CLASSES.contains(c)) {
            return;
        }
        try {
            Method m = c.getDeclaredMethod("__rivet_reset");
            m.setAccessible(true);
            CLASSES.add(c);
            RESETS.add(m);
        } catch (Throwable e) {
            // Not resettable: left as it is.
        }
    }

    /** Called before code reads a static reference or writes any static field of `c`. */
    public static void touch(Class<?> c) {
        TOUCHED.add(c);
    }

    /** Resets the registered classes touched since the last reset; how many. */
    public static int resetTouched() {
        List<Method> due = new ArrayList<Method>();
        synchronized (Statics.class) {
            if (TOUCHED.isEmpty()) {
                return 0;
            }
            for (int i = 0; i < CLASSES.size(); i++) {
                if (TOUCHED.contains(CLASSES.get(i))) {
                    due.add(RESETS.get(i));
                }
            }
            TOUCHED.clear();
        }
        for (Method m : due) {
            try {
                m.invoke(null);
            } catch (Throwable e) {
                // An initializer that fails again leaves the class as the failure left it.
            }
        }
        synchronized (Statics.class) {
            // What the initializers touched while running is their own initial state.
            TOUCHED.clear();
        }
        return due.size();
    }
}
