package statics;

/**
 * A value that computes its text once and keeps it in a field, with a shared constant. A call
 * on the constant fills the constant's cache; a test finds it filled (the cache hit) only when
 * an earlier call of the same test filled it, if every test starts from a fresh class state.
 */
public final class Cached {
    public static final Cached ONE = new Cached(1);

    private final int value;
    private String text;

    public Cached(int value) {
        this.value = value;
    }

    public String text() {
        if (text != null) {
            return text;
        }
        text = "#" + value;
        return text;
    }
}
