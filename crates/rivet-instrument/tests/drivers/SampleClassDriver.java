package drivers;

import tardis.SampleClass;

/** The TARDIS example: the "Yes" branch, a failing item, and a negative item of b. */
public class SampleClassDriver {
    public static void main(String[] args) {
        System.out.println(new SampleClass(1, 1001, 2001, 3001, 4001, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9).run());
        System.out.println(new SampleClass(1, 10, 2001, 3001, 4001, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0).run());
        System.out.println(new SampleClass(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0).run());
        try {
            new SampleClass(1, 1, 1, 1, 1, 0, 0, 0, -1, 0, 0, 0, 0, 0, 0);
        } catch (RuntimeException expected) {
            // negative item in b
        }
    }
}
