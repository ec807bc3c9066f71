import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

import rivet.runtime.Exits;
import rivet.runtime.Probes;

/**
 * Calls static methods of fixture.Dist and prints what the probes recorded. Each argument is
 * "method:arg:arg…" (ints, longs, floats and doubles as Java parses them; "null", "o1" and
 * "o2" for objects). Output per call: "# <argument>", then "probe <id> <hit> <distance> <times
 * taken>" per touched probe, "exception <class>" if the call threw, and "exit <status>" if it asked to exit.
 */
public class DistMain {
    private static final Object O1 = new Object();
    private static final Object O2 = new Object();

    public static void main(String[] args) throws Exception {
        Class<?> c = Class.forName("fixture.Dist");
        for (String a : args) {
            String[] parts = a.split(":");
            Method m = null;
            for (Method x : c.getDeclaredMethods()) {
                if (x.getName().equals(parts[0])) {
                    m = x;
                }
            }
            Class<?>[] types = m.getParameterTypes();
            Object[] values = new Object[types.length];
            for (int i = 0; i < types.length; i++) {
                values[i] = value(types[i], parts[i + 1]);
            }
            Probes.reset();
            Exits.reset();
            System.out.println("# " + a);
            String thrown = null;
            try {
                m.invoke(null, values);
            } catch (InvocationTargetException e) {
                thrown = e.getCause().getClass().getName();
            }
            for (int i = 0; i < Probes.touchedCount(); i++) {
                int p = Probes.touchedProbe(i);
                System.out.println("probe " + p + " " + Probes.isHit(p) + " " + Probes.distanceOf(p)
                        + " " + Probes.hitCount(p));
            }
            if (thrown != null) {
                System.out.println("exception " + thrown);
            }
            if (Exits.requested() != null) {
                System.out.println("exit " + Exits.requested());
            }
        }
        System.out.println("done");
    }

    private static Object value(Class<?> t, String s) {
        if (t == int.class) return Integer.parseInt(s);
        if (t == long.class) return Long.parseLong(s);
        if (t == float.class) return Float.parseFloat(s);
        if (t == double.class) return Double.parseDouble(s);
        if (s.equals("null")) return null;
        return s.equals("o1") ? O1 : O2;
    }
}
