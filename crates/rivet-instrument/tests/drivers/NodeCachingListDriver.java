package drivers;

import structures.NodeCachingList;

/** Adds and removes enough to fill the node cache, walks both halves of the list. */
public class NodeCachingListDriver {
    public static void main(String[] args) {
        NodeCachingList l = new NodeCachingList();
        try {
            l.removeFirst();
        } catch (java.util.NoSuchElementException expected) {
            // empty
        }
        for (int i = 0; i < 30; i++) {
            if (i % 2 == 0) {
                l.addFirst(i);
            } else {
                l.addLast(i);
            }
        }
        l.get(2);
        l.get(27);
        try {
            l.get(-1);
        } catch (IndexOutOfBoundsException expected) {
            // out of range
        }
        try {
            l.get(30);
        } catch (IndexOutOfBoundsException expected) {
            // out of range
        }
        l.contains(7);
        l.contains(99);
        l.removeValue(8);
        l.removeValue(99);
        l.removeAt(3);
        l.removeAt(20);
        l.removeFirst();
        l.clear();
        for (int i = 0; i < 5; i++) {
            l.addLast(i);
        }
        System.out.println("list size " + l.size() + " cache " + l.cacheSize());
    }
}
