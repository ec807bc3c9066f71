package drivers;

import lct.Examples;
import lct.SimpleList;

/** The LCT examples with inputs for most of their branches, including the aliasing ones. */
public class ExamplesDriver {
    public static void main(String[] args) {
        Examples e = new Examples();
        e.figure1(-20, 3);
        e.figure1(-4, 3);
        e.figure1(10, 4);
        try {
            e.figure1(0, 2789);
        } catch (IllegalStateException expected) {
            // the error branch
        }
        SimpleList a = new SimpleList();
        SimpleList b = new SimpleList();
        a.next = b;
        e.figure3(1, a);
        SimpleList self = new SimpleList();
        self.next = self;
        try {
            e.figure3(1, self);
        } catch (IllegalStateException expected) {
            // the aliasing branch
        }
        try {
            e.figure3(-10, a);
        } catch (NullPointerException expected) {
            // x <= 0 nulls the list
        }
        e.figure12(a, b, 4);
        e.figure12(null, b, 5);
        e.figure12(a, null, 5);
        e.figure12(a, b, 5);
        e.figure12(a, a, 5);
        e.figure15(5, 3);
        e.figure15(3, 5);
        System.out.println("examples done");
    }
}
