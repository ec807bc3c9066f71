package rivet.runtime;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Branch probes called by classes that Rivet instrumented. Every branch has a global probe id
 * (the instrumented class's base plus the branch id that `rivet branches` prints). For each probe
 * the runtime records how many times the branch was taken and the minimum branch distance seen
 * while it was not (distance 0 when taken, otherwise |a - b|, plus 1 for strict comparisons).
 * JaCoCo's points count once.
 *
 * Single-threaded by design: the worker runs one test at a time; updates from threads the code
 * under test starts may be lost, never crash.
 */
public final class Probes {
    private Probes() {}

    /** Times taken per probe (0: never; saturates at Integer.MAX_VALUE). */
    private static int[] hits = new int[1024];
    /** Minimum distance per probe; +infinity when never evaluated. */
    private static double[] dist = filled(1024);
    /** Probes touched since the last reset, for sparse reads and resets. */
    private static int[] touched = new int[256];
    private static int touchedCount = 0;
    private static boolean[] isTouched = new boolean[1024];

    /**
     * Where the equality probes start: at a relational jump (lt, ge, gt, le) with taken-branch
     * probe p, probe EQUALITY_BASE + p records |a - b|, so it is hit when the operands are equal,
     * the state in which a boundary mutant (< for <=) changes the outcome. Negative: not recorded.
     */
    private static final int EQUALITY_BASE = Integer.getInteger("rivet.equalityBase", -1);

    /** Operands remembered by the last lcmp/fcmp/dcmp replacement, for the jump that follows. */
    private static double lastA, lastB;

    /** Switch tables: per switch id, sorted keys, the probe of each key, and the default probe. */
    private static int[][] switchKeys = new int[0][];
    private static int[][] switchProbes = new int[0][];
    private static int[] switchDefault = new int[0];

    static {
        loadSwitchTables();
    }

    private static double[] filled(int n) {
        double[] d = new double[n];
        Arrays.fill(d, Double.POSITIVE_INFINITY);
        return d;
    }

    private static void grow(int probe) {
        int n = hits.length;
        while (n <= probe) {
            n *= 2;
        }
        hits = Arrays.copyOf(hits, n);
        isTouched = Arrays.copyOf(isTouched, n);
        double[] d = filled(n);
        System.arraycopy(dist, 0, d, 0, dist.length);
        dist = d;
    }

    private static void record(int probe, double distance) {
        try {
            if (probe >= hits.length) {
                grow(probe);
            }
            if (!isTouched[probe]) {
                isTouched[probe] = true;
                if (touchedCount >= touched.length) {
                    touched = Arrays.copyOf(touched, Math.max(touchedCount, touched.length) * 2);
                }
                touched[touchedCount++] = probe;
            }
            if (distance == 0) {
                if (hits[probe] != Integer.MAX_VALUE) {
                    hits[probe]++;
                }
                dist[probe] = 0;
            } else if (distance < dist[probe]) {
                dist[probe] = distance;
            }
        } catch (RuntimeException e) {
            // Only a race with a thread the code under test started gets here (arrays swapped
            // while growing): the update is lost, the code under test must not see an error.
        }
    }

    /** Distance from satisfying `a OP b` for the if-opcode family (ifeq..if_icmple mapped to a compare). */
    private static double distance(double a, double b, int cmp) {
        double d = Math.abs(a - b);
        if (Double.isNaN(d)) {
            return 1;
        }
        switch (cmp) {
            case EQ: return a == b ? 0 : d;
            case NE: return a != b ? 0 : 1;
            case LT: return a < b ? 0 : d + 1;
            case GE: return a >= b ? 0 : d;
            case GT: return a > b ? 0 : d + 1;
            case LE: return a <= b ? 0 : d;
            default: return 1;
        }
    }

    private static final int EQ = 0, NE = 1, LT = 2, GE = 3, GT = 4, LE = 5;

    /** The comparison an if-opcode makes (153..158 ifXX, 159..164 if_icmpXX). */
    private static int comparison(int opcode) {
        if (opcode >= 153 && opcode <= 158) {
            return opcode - 153;
        }
        if (opcode >= 159 && opcode <= 164) {
            return opcode - 159;
        }
        return -1;
    }

    private static int negate(int cmp) {
        return cmp ^ 1;
    }

    private static void both(double a, double b, int cmp, int probe) {
        // probe: the jump-taken branch; probe + 1: the fall-through branch.
        if (tracing) {
            traced(distance(a, b, cmp) == 0 ? probe : probe + 1);
        }
        record(probe, distance(a, b, cmp));
        record(probe + 1, distance(a, b, negate(cmp)));
        equality(a, b, cmp, probe);
    }

    /** The equality probe of a relational jump (see EQUALITY_BASE). */
    private static void equality(double a, double b, int cmp, int probe) {
        if (EQUALITY_BASE >= 0 && cmp >= 2 && !Double.isNaN(a) && !Double.isNaN(b)) {
            record(EQUALITY_BASE + probe, Math.abs(a - b));
        }
    }

    // ---- the running test's deadline: a probe past it throws Overrun ----

    /** Probes between two looks at the clock. */
    private static final int CHECK_EVERY = 1024;
    private static int countdown = CHECK_EVERY;
    private static boolean armed = false;
    private static boolean overrun = false;
    private static long deadline;
    /** Clock checks left before the running test's probe budget is spent (-1: no budget). */
    private static long checksLeft = -1;

    /** Every branch probe counts down; every CHECK_EVERY of them look at the clock. */
    private static void tick() {
        if (--countdown <= 0) {
            checkDeadline();
        }
    }

    /**
     * A backward jump in a class without branch probes (a library the class under test calls):
     * counts as a probe does, so that a test looping there ends at its deadline too.
     */
    public static void loop() {
        tick();
    }

    private static void checkDeadline() {
        countdown = CHECK_EVERY;
        if (!armed) {
            return;
        }
        if (checksLeft > 0) {
            checksLeft--;
        }
        if (overrun || checksLeft == 0 || System.nanoTime() - deadline > 0) {
            // Every later probe throws too, so that code catching Throwable cannot go on long.
            overrun = true;
            countdown = 1;
            throw new Overrun();
        }
    }

    /**
     * The running test may take `nanos` more and, if `probes` is positive, execute about that
     * many more branch probes (counted in steps of CHECK_EVERY, at least one step); a probe after
     * either throws {@link Overrun}.
     */
    public static void arm(long nanos, long probes) {
        deadline = System.nanoTime() + nanos;
        checksLeft = probes > 0 ? Math.max(1, probes / CHECK_EVERY) : -1;
        overrun = false;
        countdown = CHECK_EVERY;
        armed = true;
    }

    /** No deadline (between tests). Returns whether the test overran it. */
    public static boolean disarm() {
        armed = false;
        checksLeft = -1;
        countdown = CHECK_EVERY;
        boolean was = overrun;
        overrun = false;
        return was;
    }

    /** Before ifeq..ifle (b = 0) and if_icmpeq..if_icmple: `opcode` is the jump's opcode. */
    public static void jump(int a, int b, int opcode, int probe) {
        tick();
        both(a, b, comparison(opcode), probe);
    }

    /** Before an if-opcode that consumes the result of a replaced lcmp/fcmp/dcmp. */
    public static void jumpCmp(int result, int opcode, int probe) {
        tick();
        int cmp = comparison(opcode);
        boolean taken = holds(result, cmp);
        if (tracing) {
            traced(taken ? probe : probe + 1);
        }
        if (Double.isNaN(lastA) || Double.isNaN(lastB)) {
            record(probe, taken ? 0 : 1);
            record(probe + 1, taken ? 1 : 0);
        } else {
            // The real result decides what was taken; the remembered operands give the distance
            // of the other branch. Longs beyond 2^53 may compare equal as doubles although they
            // differ: such a distance is at least 1, never 0 (0 means taken).
            if (taken) {
                record(probe, 0);
                record(probe + 1, positive(distance(lastA, lastB, negate(cmp))));
            } else {
                record(probe, positive(distance(lastA, lastB, cmp)));
                record(probe + 1, 0);
            }
            equality(lastA, lastB, cmp, probe);
        }
    }

    private static double positive(double d) {
        return d > 0 ? d : 1;
    }

    private static boolean holds(int r, int cmp) {
        switch (cmp) {
            case EQ: return r == 0;
            case NE: return r != 0;
            case LT: return r < 0;
            case GE: return r >= 0;
            case GT: return r > 0;
            case LE: return r <= 0;
            default: return false;
        }
    }

    /** Before if_acmpeq/if_acmpne (165/166) and ifnull/ifnonnull (198/199, b = null). */
    public static void jumpRef(Object a, Object b, int opcode, int probe) {
        tick();
        boolean same = a == b;
        boolean taken = (opcode == 165 || opcode == 198) ? same : !same;
        if (tracing) {
            traced(taken ? probe : probe + 1);
        }
        record(probe, taken ? 0 : 1);
        record(probe + 1, taken ? 1 : 0);
    }

    // ---- traces (the concolic strategy): the branch probes taken while tracing, in order ----

    private static boolean tracing = false;
    private static int[] trace = new int[1024];
    private static int traceLength = 0;
    private static boolean traceTruncated = false;
    /** Most outcomes one trace records (rivet_testcase::MAX_TRACE). */
    private static final int MAX_TRACE = 100_000;

    private static void traced(int probe) {
        if (traceLength >= MAX_TRACE) {
            traceTruncated = true;
            return;
        }
        if (traceLength == trace.length) {
            trace = Arrays.copyOf(trace, trace.length * 2);
        }
        trace[traceLength++] = probe;
    }

    /** Starts recording a trace (forgetting the last one). */
    public static void startTrace() {
        traceLength = 0;
        traceTruncated = false;
        tracing = true;
    }

    /** Stops recording and returns the trace. */
    public static int[] stopTrace() {
        tracing = false;
        return Arrays.copyOf(trace, traceLength);
    }

    /** Did the last trace reach its bound? */
    public static boolean traceTruncated() {
        return traceTruncated;
    }

    // ---- JaCoCo's probes ("points"): ids after the branch probes of their class; a point is
    // recorded as a hit probe, so that the report can count what JaCoCo would count ----

    /** A point reached (before a return, a throw or a goto; on fall-through into a label). */
    public static void point(int id) {
        tick();
        if (id < hits.length && hits[id] != 0) {
            return;
        }
        record(id, 0);
    }

    /** Before ifeq..if_icmple: the point runs when the jump is taken. */
    public static void pointIf(int a, int b, int opcode, int id) {
        int r = a < b ? -1 : a == b ? 0 : 1;
        if (holds(r, comparison(opcode))) {
            point(id);
        }
    }

    /** Before if_acmpeq/if_acmpne and ifnull/ifnonnull (b = null): runs when the jump is taken. */
    public static void pointIfRef(Object a, Object b, int opcode, int id) {
        boolean same = a == b;
        if ((opcode == 165 || opcode == 198) ? same : !same) {
            point(id);
        }
    }

    /** Before a switch whose targets have points: the point of the target the key selects. */
    public static void switchPoint(int key, int switchId) {
        if (switchId < 0 || switchId >= switchKeys.length || switchKeys[switchId] == null) {
            return;
        }
        int[] keys = switchKeys[switchId];
        int i = Arrays.binarySearch(keys, key);
        int id = i >= 0 ? switchProbes[switchId][i] : switchDefault[switchId];
        if (id >= 0) {
            point(id);
        }
    }

    /** Replaces lcmp. */
    public static int lcmp(long a, long b) {
        lastA = a;
        lastB = b;
        return Long.compare(a, b);
    }

    /** Replaces fcmpl (NaN compares as -1). */
    public static int fcmpl(float a, float b) {
        lastA = a;
        lastB = b;
        return (Float.isNaN(a) || Float.isNaN(b)) ? -1 : a < b ? -1 : a == b ? 0 : 1;
    }

    /** Replaces fcmpg (NaN compares as 1). */
    public static int fcmpg(float a, float b) {
        lastA = a;
        lastB = b;
        return (Float.isNaN(a) || Float.isNaN(b)) ? 1 : a < b ? -1 : a == b ? 0 : 1;
    }

    /** Replaces dcmpl. */
    public static int dcmpl(double a, double b) {
        lastA = a;
        lastB = b;
        return (Double.isNaN(a) || Double.isNaN(b)) ? -1 : a < b ? -1 : a == b ? 0 : 1;
    }

    /** Replaces dcmpg. */
    public static int dcmpg(double a, double b) {
        lastA = a;
        lastB = b;
        return (Double.isNaN(a) || Double.isNaN(b)) ? 1 : a < b ? -1 : a == b ? 0 : 1;
    }

    /** Before a tableswitch/lookupswitch: the key and the switch's id in the switch tables. */
    public static void switchKey(int key, int switchId) {
        tick();
        if (switchId < 0 || switchId >= switchKeys.length || switchKeys[switchId] == null) {
            return;
        }
        int[] keys = switchKeys[switchId];
        int[] probes = switchProbes[switchId];
        boolean matched = false;
        // Distances per case group: a group's probe appears once per key it has.
        for (int i = 0; i < keys.length; i++) {
            double d = Math.abs((double) key - (double) keys[i]);
            if (d == 0) {
                matched = true;
                if (tracing) {
                    traced(probes[i]);
                }
            }
            record(probes[i], d);
        }
        if (tracing && !matched) {
            traced(switchDefault[switchId]);
        }
        record(switchDefault[switchId], matched ? 1 : 0);
    }

    /**
     * Loads switch tables from the resource rivet/runtime/switches.bin, written by the
     * instrumenter: u32 count, then per switch: u32 id, u32 default probe, u32 n, n × (i32 key, u32 probe).
     */
    private static void loadSwitchTables() {
        InputStream in = Probes.class.getResourceAsStream("/rivet/runtime/switches.bin");
        if (in == null) {
            return;
        }
        try (DataInputStream data = new DataInputStream(in)) {
            int count = data.readInt();
            int maxId = -1;
            int[] ids = new int[count];
            int[][] keys = new int[count][];
            int[][] probes = new int[count][];
            int[] defaults = new int[count];
            for (int s = 0; s < count; s++) {
                ids[s] = data.readInt();
                defaults[s] = data.readInt();
                int n = data.readInt();
                keys[s] = new int[n];
                probes[s] = new int[n];
                for (int i = 0; i < n; i++) {
                    keys[s][i] = data.readInt();
                    probes[s][i] = data.readInt();
                }
                maxId = Math.max(maxId, ids[s]);
            }
            switchKeys = new int[maxId + 1][];
            switchProbes = new int[maxId + 1][];
            switchDefault = new int[maxId + 1];
            for (int s = 0; s < count; s++) {
                switchKeys[ids[s]] = keys[s];
                switchProbes[ids[s]] = probes[s];
                switchDefault[ids[s]] = defaults[s];
            }
        } catch (IOException e) {
            throw new IllegalStateException("rivet: corrupt rivet/runtime/switches.bin", e);
        }
    }

    // ---- used by the worker harness ----

    /** Forgets everything recorded since the last reset. */
    public static void reset() {
        for (int i = 0; i < touchedCount; i++) {
            int p = touched[i];
            hits[p] = 0;
            dist[p] = Double.POSITIVE_INFINITY;
            isTouched[p] = false;
        }
        touchedCount = 0;
    }

    /** Number of probes touched since the last reset. */
    public static int touchedCount() {
        return touchedCount;
    }

    /** The i-th touched probe id. */
    public static int touchedProbe(int i) {
        return touched[i];
    }

    /** Was the probe's branch taken? */
    public static boolean isHit(int probe) {
        return probe < hits.length && hits[probe] != 0;
    }

    /** How many times the probe's branch was taken (JaCoCo's points: 1 once reached). */
    public static int hitCount(int probe) {
        return probe < hits.length ? hits[probe] : 0;
    }

    /** Minimum distance seen for the probe (0 when hit, +infinity when never evaluated). */
    public static double distanceOf(int probe) {
        return probe < dist.length ? dist[probe] : Double.POSITIVE_INFINITY;
    }
}
