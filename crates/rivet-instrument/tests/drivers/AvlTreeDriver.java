package drivers;

import structures.AvlTree;

/** Insertions that need all four rotation cases, look-ups, removals of every node shape. */
public class AvlTreeDriver {
    public static void main(String[] args) {
        AvlTree t = new AvlTree();
        t.contains(1);
        try {
            t.min();
        } catch (IllegalStateException expected) {
            // the empty tree has no minimum
        }
        // right-right, left-left, left-right, right-left cases
        for (int k : new int[] {10, 20, 30, 25, 28, 5, 3, 4, 27, 26, 1, 2}) {
            t.insert(k);
        }
        t.insert(20); // duplicate
        for (int k : new int[] {1, 4, 28, 100, -5, 26}) {
            t.contains(k);
        }
        t.min();
        t.height();
        t.size();
        t.remove(100); // absent
        t.remove(3); // leaf or one child
        t.remove(25); // two children
        t.remove(10);
        t.remove(1);
        t.remove(2);
        t.remove(4);
        for (int k = 40; k < 60; k += 3) {
            t.insert(k);
        }
        for (int k = 58; k > 30; k -= 3) {
            t.remove(k);
        }
        t.remove(5);
        System.out.println("avl size " + t.size() + " height " + t.height());
    }
}
