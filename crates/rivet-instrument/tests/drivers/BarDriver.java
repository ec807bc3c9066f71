package drivers;

import evodse.Bar;
import evodse.Foo;

/** evodse.Bar: the name "baz" with five increments (the hard branch), fewer, another name. */
public class BarDriver {
    public static void main(String[] args) {
        Foo five = new Foo();
        for (int i = 0; i < 5; i++) {
            five.inc();
        }
        Foo two = new Foo();
        two.inc();
        two.inc();
        System.out.println(new Bar("baz").check(five));
        System.out.println(new Bar("baz").check(two));
        System.out.println(new Bar("qux").check(five));
    }
}
