package drivers;

import fixture.Shapes;

/** Exercises tests/java/fixture/Shapes.java; every exception it provokes is an explicit throw. */
public class ShapesDriver {
    public static void main(String[] args) {
        for (String s : new String[] {"one", "deux", "Aa", "BB", "zzz", "Ab"}) {
            Shapes.stringSwitch(s);
        }
        for (int x : new int[] {5, 20, 3}) {
            Shapes.withFinally(x);
        }
        try {
            Shapes.withFinally(-1);
        } catch (IllegalArgumentException expected) {
            // the finally copy in the handler runs
        }
        Shapes.tryResources(false);
        try {
            Shapes.tryResources(true);
        } catch (IllegalStateException expected) {
            // thrown inside the resource block
        }
        Shapes.colors(Shapes.Color.GREEN);
        Shapes.colors(Shapes.Color.BLUE);
        Shapes.longs(1, 2);
        Shapes.longs(2, 2);
        Shapes.floats(2.0, 1f);
        Shapes.floats(1.0, 3f);
        Shapes.floats(2.0, 2f);
        Shapes.lambdas(new int[] {1, 5, -1, 2});
        Shapes.checked(3);
        Shapes s = new Shapes();
        s.locked(true);
        s.locked(false);
        Shapes.kind(null);
        Shapes.kind("x");
        Shapes.kind(3);
        new Shapes.Sub(3);
        new Shapes.Sub(0);
        Shapes.capacity(1);
        System.out.println("shapes done");
    }
}
