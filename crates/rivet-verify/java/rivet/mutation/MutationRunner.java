package rivet.mutation;

import java.io.File;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Runs JUnit tests against mutants of one class, in one JVM, each mutant in a class loader of
 * its own (so statics start fresh), reporting on standard output one tab-separated line per
 * result. The plan file's lines:
 *
 * <pre>
 * cp PATH              an entry loaded anew per mutant (test classes, the classpath)
 * mutants N            how many mutants the class has
 * testclass NAME       a test class (reach mode)
 * reach NAME FILE      reach mode: run every test class once with these class files
 * mutant ID NAME FILE MS TEST...   run these tests against class NAME from this file, MS
 *                                  ms per test
 * matrix ID NAME FILE MS TEST...   the same, every test (no stop at the first failure)
 * </pre>
 *
 * Output: {@code test NAME MICROS pass|fail REACHED} per test in reach mode; {@code start ID},
 * then {@code killed ID TEST}, {@code survived ID}, {@code nonviable ID MESSAGE} or
 * {@code timeout ID TEST} per mutant; in matrix mode {@code row ID TEST pass|fail FAILED}
 * per test (FAILED: the keys of the {@link Soft} assertions that failed), then
 * {@code done ID}. After a timeout the JVM halts; the caller starts a new
 * one for the mutants left. A test is named {@code Class#method(parameter types)}.
 */
public final class MutationRunner {
    private static PrintStream out;
    private static volatile long deadline;
    private static volatile String running = "";
    /** What loading and discovering one test may take beyond the test's own limit. */
    private static final long DISCOVERY_MS = 10_000L;

    private MutationRunner() {}

    public static void main(String[] args) throws Exception {
        out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
        PrintStream quiet = new PrintStream(OutputStream.nullOutputStream(), true, "UTF-8");
        System.setOut(quiet);
        System.setErr(quiet);
        List<URL> urls = new ArrayList<>();
        List<String> testClasses = new ArrayList<>();
        List<String[]> mutants = new ArrayList<>();
        java.util.Map<String, byte[]> reach = new java.util.HashMap<>();
        int count = 0;
        for (String line : Files.readAllLines(Paths.get(args[0]), StandardCharsets.UTF_8)) {
            String[] f = line.split("\t");
            switch (f[0]) {
                case "cp": urls.add(new File(f[1]).toURI().toURL()); break;
                case "mutants": count = Integer.parseInt(f[1]); break;
                case "testclass": testClasses.add(f[1]); break;
                case "reach": reach.put(f[1], Files.readAllBytes(Paths.get(f[2]))); break;
                case "mutant":
                case "matrix": mutants.add(f); break;
                default: break;
            }
        }
        Reach.init(count);
        startWatchdog();
        // The reach run is watched by the watchdog thread; mutants by the main thread.
        Launcher launcher = LauncherFactory.create();
        URL[] path = urls.toArray(new URL[0]);
        if (!reach.isEmpty()) {
            reach(launcher, new MutantLoader(path, reach), testClasses);
        }
        for (String[] m : mutants) {
            java.util.Map<String, byte[]> mutated = java.util.Collections.singletonMap(
                    m[2], Files.readAllBytes(Paths.get(m[3])));
            long limit = Long.parseLong(m[4]);
            List<String> tests = new ArrayList<>();
            for (int i = 5; i < m.length; i++) {
                tests.add(m[i]);
            }
            out.println("start\t" + m[1]);
            boolean matrix = m[0].equals("matrix");
            Launcher current = launcher;
            String[] result = new String[1];
            Thread runner = new Thread(() -> {
                result[0] = mutant(current, new MutantLoader(path, mutated), m[1], limit, tests, matrix);
            }, "rivet-mutant-" + m[1]);
            runner.setDaemon(true);
            runner.start();
            if (watch(runner)) {
                out.println(result[0]);
            } else {
                // A test ran out of time: the mutant timed out; the test's thread is stopped
                // and the mutants go on with a fresh launcher.
                launcher = LauncherFactory.create();
            }
        }
        out.flush();
        Runtime.getRuntime().halt(0);
    }

    /**
     * Waits for a mutant's thread; when a test runs past its deadline, reports the timeout
     * and stops the thread (false), or halts the JVM when it cannot be stopped (the caller
     * starts a new one for the mutants left).
     */
    @SuppressWarnings({"deprecation", "removal"})
    private static boolean watch(Thread t) throws InterruptedException {
        boolean timedOut = false;
        long giveUp = Long.MAX_VALUE;
        while (t.isAlive()) {
            t.join(10);
            long d = deadline;
            long now = System.nanoTime();
            if (t.isAlive() && (timedOut || (d != 0 && now > d))) {
                if (!timedOut) {
                    out.println("timeout\t" + running);
                    out.flush();
                    timedOut = true;
                    giveUp = now + 2_000_000_000L;
                }
                deadline = 0;
                try {
                    // Ends the test that ran out of time, and the mutant's run with it (the
                    // thread is stopped until it ends: a timeout kills the mutant, its other
                    // tests do not matter).
                    t.stop();
                } catch (Throwable e) {
                    // Thread.stop is gone (Java 20 and later).
                    Runtime.getRuntime().halt(0);
                }
            }
            if (t.isAlive() && now > giveUp) {
                Runtime.getRuntime().halt(0);
            }
        }
        return !timedOut;
    }

    private static void startWatchdog() {
        Thread t = new Thread(() -> {
            while (true) {
                long d = deadline;
                if (d != 0 && System.nanoTime() > d + 3_000_000_000L) {
                    out.println("timeout\t" + running);
                    out.flush();
                    Runtime.getRuntime().halt(0);
                }
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "rivet-mutation-watchdog");
        t.setDaemon(true);
        t.start();
    }

    private static String testName(TestIdentifier id) {
        TestSource s = id.getSource().orElse(null);
        if (s instanceof MethodSource) {
            MethodSource m = (MethodSource) s;
            return m.getClassName() + "#" + m.getMethodName() + "(" + m.getMethodParameterTypes() + ")";
        }
        return id.getLegacyReportingName();
    }

    private static void reach(Launcher launcher, ClassLoader loader, List<String> testClasses)
            throws Exception {
        List<DiscoverySelector> selectors = new ArrayList<>();
        for (String c : testClasses) {
            selectors.add(DiscoverySelectors.selectClass(loader.loadClass(c)));
        }
        long[] start = new long[1];
        TestExecutionListener listener = new TestExecutionListener() {
            @Override
            public void executionStarted(TestIdentifier id) {
                if (id.isTest()) {
                    Reach.reset();
                    start[0] = System.nanoTime();
                }
            }

            @Override
            public void executionFinished(TestIdentifier id, TestExecutionResult r) {
                if (!id.isTest()) {
                    return;
                }
                long micros = (System.nanoTime() - start[0]) / 1000;
                String status = r.getStatus() == TestExecutionResult.Status.SUCCESSFUL ? "pass" : "fail";
                out.println("test\t" + testName(id) + "\t" + micros + "\t" + status + "\t" + Reach.reached());
            }
        };
        launcher.execute(LauncherDiscoveryRequestBuilder.request().selectors(selectors).build(), listener);
    }

    /**
     * The result line of one mutant; in matrix mode every test runs and a line per test is
     * printed first.
     */
    private static String mutant(
            Launcher launcher, ClassLoader loader, String id, long limit, List<String> tests, boolean matrix) {
        if (matrix) {
            return matrix(launcher, loader, id, limit, tests);
        }
        for (String test : tests) {
            int hash = test.indexOf('#');
            int paren = test.indexOf('(', hash);
            String cls = test.substring(0, hash);
            String method = paren < 0 ? test.substring(hash + 1) : test.substring(hash + 1, paren);
            String params = paren < 0 ? "" : test.substring(paren + 1, test.length() - 1);
            Throwable[] failure = new Throwable[1];
            boolean[] failed = new boolean[1];
            TestExecutionListener listener = new TestExecutionListener() {
                @Override
                public void executionStarted(TestIdentifier tid) {
                    if (tid.isTest()) {
                        // The test's own limit counts from here, as its time in the reach
                        // run was measured.
                        deadline = System.nanoTime() + limit * 1_000_000L;
                    }
                }

                @Override
                public void executionFinished(TestIdentifier tid, TestExecutionResult r) {
                    if (r.getStatus() == TestExecutionResult.Status.FAILED && !failed[0]) {
                        failed[0] = true;
                        failure[0] = r.getThrowable().orElse(null);
                    }
                }
            };
            running = id + "\t" + test;
            // Loading the test class and the engines' discovery (slow in a cold JVM, and
            // not part of the test's measured time) get an allowance of their own.
            deadline = System.nanoTime() + (limit + DISCOVERY_MS) * 1_000_000L;
            try {
                Class<?> c = loader.loadClass(cls);
                DiscoverySelector selector = params.isEmpty()
                        ? DiscoverySelectors.selectMethod(c, method)
                        : DiscoverySelectors.selectMethod(c, method, params);
                launcher.execute(LauncherDiscoveryRequestBuilder.request().selectors(selector).build(), listener);
            } catch (Throwable t) {
                failed[0] = true;
                failure[0] = t;
            } finally {
                deadline = 0;
            }
            if (matrix) {
                out.println("row\t" + id + "\t" + test + "\t" + (failed[0] ? "fail" : "pass") + "\t" + Soft.drain());
                continue;
            }
            if (failed[0]) {
                for (Throwable t = failure[0]; t != null; t = t.getCause()) {
                    if (t instanceof VerifyError || t instanceof ClassFormatError) {
                        return "nonviable\t" + id + "\t" + oneLine(t.toString());
                    }
                }
                return "killed\t" + id + "\t" + test;
            }
        }
        return (matrix ? "done\t" : "survived\t") + id;
    }

    private static DiscoverySelector selector(ClassLoader loader, String test) throws ClassNotFoundException {
        int hash = test.indexOf('#');
        int paren = test.indexOf('(', hash);
        Class<?> c = loader.loadClass(test.substring(0, hash));
        String method = paren < 0 ? test.substring(hash + 1) : test.substring(hash + 1, paren);
        String params = paren < 0 ? "" : test.substring(paren + 1, test.length() - 1);
        return params.isEmpty()
                ? DiscoverySelectors.selectMethod(c, method)
                : DiscoverySelectors.selectMethod(c, method, params);
    }

    /**
     * Matrix mode: every test against the mutant in one launcher run, a row per test with the
     * soft assertions it failed; each test has its own time limit.
     */
    private static String matrix(Launcher launcher, ClassLoader loader, String id, long limit, List<String> tests) {
        List<DiscoverySelector> selectors = new ArrayList<>();
        for (String test : tests) {
            try {
                selectors.add(selector(loader, test));
            } catch (Throwable t) {
                out.println("row\t" + id + "\t" + test + "\tfail\t");
            }
        }
        TestExecutionListener listener = new TestExecutionListener() {
            @Override
            public void executionStarted(TestIdentifier tid) {
                if (tid.isTest()) {
                    Soft.drain();
                    running = id + "\t" + testName(tid);
                    deadline = System.nanoTime() + limit * 1_000_000L;
                }
            }

            @Override
            public void executionFinished(TestIdentifier tid, TestExecutionResult r) {
                if (!tid.isTest()) {
                    return;
                }
                deadline = 0;
                boolean failed = r.getStatus() == TestExecutionResult.Status.FAILED;
                out.println("row\t" + id + "\t" + testName(tid) + "\t" + (failed ? "fail" : "pass") + "\t" + Soft.drain());
            }
        };
        try {
            launcher.execute(LauncherDiscoveryRequestBuilder.request().selectors(selectors).build(), listener);
        } finally {
            deadline = 0;
        }
        return "done\t" + id;
    }

    private static String oneLine(String s) {
        return s.replace('\t', ' ').replace('\n', ' ').replace('\r', ' ');
    }

    /**
     * Loads the replaced classes from their bytes and every other class of the given entries anew
     * (child first), sharing only the JDK's, JUnit's and this runner's classes.
     */
    static final class MutantLoader extends URLClassLoader {
        private final java.util.Map<String, byte[]> replaced;

        MutantLoader(URL[] urls, java.util.Map<String, byte[]> replaced) {
            super(urls, MutationRunner.class.getClassLoader());
            this.replaced = replaced;
        }

        private static boolean shared(String n) {
            return n.startsWith("java.") || n.startsWith("javax.") || n.startsWith("jdk.")
                    || n.startsWith("sun.") || n.startsWith("com.sun.") || n.startsWith("org.junit.")
                    || n.startsWith("junit.") || n.startsWith("org.opentest4j.")
                    || n.startsWith("org.apiguardian.") || n.startsWith("org.hamcrest.")
                    || n.startsWith("rivet.mutation.");
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    if (shared(name)) {
                        c = getParent().loadClass(name);
                    } else if (replaced.containsKey(name)) {
                        byte[] bytes = replaced.get(name);
                        c = defineClass(name, bytes, 0, bytes.length);
                    } else {
                        try {
                            c = findClass(name);
                        } catch (ClassNotFoundException e) {
                            c = getParent().loadClass(name);
                        }
                    }
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }
    }
}
