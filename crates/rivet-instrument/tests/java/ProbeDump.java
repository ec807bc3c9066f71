import java.lang.reflect.Method;

import rivet.runtime.Probes;

/**
 * Runs the main method of the class named by args[0] (a driver over instrumented classes),
 * then prints "hit <probe>" for every probe whose branch was taken.
 */
public class ProbeDump {
    public static void main(String[] args) throws Exception {
        Method main = Class.forName(args[0]).getMethod("main", String[].class);
        main.invoke(null, (Object) new String[0]);
        for (int i = 0; i < Probes.touchedCount(); i++) {
            int p = Probes.touchedProbe(i);
            if (Probes.isHit(p)) {
                System.out.println("hit " + p);
            }
        }
    }
}
