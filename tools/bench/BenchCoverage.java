import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.jacoco.core.analysis.Analyzer;
import org.jacoco.core.analysis.CoverageBuilder;
import org.jacoco.core.analysis.IClassCoverage;
import org.jacoco.core.analysis.ICounter;
import org.jacoco.core.tools.ExecFileLoader;

/**
 * Branch coverage of one class (and its nested classes; `own=` the class alone) from a JaCoCo exec file, for Rivet's
 * bench harness (tools/bench/bench.sh).
 *
 * <p>Usage: {@code BenchCoverage EXEC CLASSES CLASS [HARD_LINES]}: CLASSES is a directory or a
 * jar holding the original class files, CLASS a binary name, HARD_LINES a comma-separated list
 * of source lines marked {@code // HARD} (or {@code -}). Prints
 * {@code branches=T covered=C hard=H/N}: a HARD line counts as covered when JaCoCo saw any of
 * its instructions run.
 */
public final class BenchCoverage {
    public static void main(String[] args) throws IOException {
        ExecFileLoader loader = new ExecFileLoader();
        File exec = new File(args[0]);
        if (exec.isFile()) {
            loader.load(exec);
        }
        CoverageBuilder builder = new CoverageBuilder();
        Analyzer analyzer = new Analyzer(loader.getExecutionDataStore(), builder);
        String internal = args[2].replace('.', '/');
        File classes = new File(args[1]);
        if (classes.isDirectory()) {
            File dir = new File(classes, internal).getParentFile();
            String simple = internal.substring(internal.lastIndexOf('/') + 1);
            File[] files = dir.listFiles();
            if (files != null) {
                for (File f : files) {
                    String n = f.getName();
                    if (n.equals(simple + ".class") || (n.startsWith(simple + "$") && n.endsWith(".class"))) {
                        try (InputStream in = new FileInputStream(f)) {
                            analyzer.analyzeClass(in, f.getPath());
                        }
                    }
                }
            }
        } else {
            try (ZipFile zip = new ZipFile(classes)) {
                Enumeration<? extends ZipEntry> entries = zip.entries();
                while (entries.hasMoreElements()) {
                    ZipEntry e = entries.nextElement();
                    String n = e.getName();
                    if (n.equals(internal + ".class") || (n.startsWith(internal + "$") && n.endsWith(".class"))) {
                        try (InputStream in = zip.getInputStream(e)) {
                            analyzer.analyzeClass(in, n);
                        }
                    }
                }
            }
        }
        int total = 0;
        int covered = 0;
        IClassCoverage top = null;
        for (IClassCoverage c : builder.getClasses()) {
            total += c.getBranchCounter().getTotalCount();
            covered += c.getBranchCounter().getCoveredCount();
            if (c.getName().equals(internal)) {
                top = c;
            }
        }
        List<Integer> hard = new ArrayList<>();
        if (args.length > 3 && !args[3].equals("-") && !args[3].isEmpty()) {
            for (String s : args[3].split(",")) {
                hard.add(Integer.parseInt(s.trim()));
            }
        }
        int hardCovered = 0;
        for (int line : hard) {
            boolean hit = false;
            for (IClassCoverage c : builder.getClasses()) {
                int status = c.getLine(line).getStatus();
                if (c.getSourceFileName() != null && top != null && c.getSourceFileName().equals(top.getSourceFileName())
                        && (status == ICounter.FULLY_COVERED || status == ICounter.PARTLY_COVERED)) {
                    hit = true;
                }
            }
            if (hit) {
                hardCovered++;
            }
        }
        // The named class alone (without its nested classes), as the real-classes issue counts.
        String own = top == null ? "-"
                : top.getBranchCounter().getCoveredCount() + "/" + top.getBranchCounter().getTotalCount();
        System.out.println("branches=" + total + " covered=" + covered + " hard=" + hardCovered + "/" + hard.size()
                + " own=" + own);
        // With BENCH_CLASSES set: per class with branches, covered/total on stderr.
        if (System.getenv("BENCH_CLASSES") != null) {
            for (IClassCoverage c : builder.getClasses()) {
                ICounter b = c.getBranchCounter();
                if (b.getTotalCount() > 0) {
                    System.err.println(c.getName().replace('/', '.') + " " + b.getCoveredCount() + "/" + b.getTotalCount());
                }
            }
        }
        // With BENCH_LINES set: per class and line, covered/total branches on stderr.
        if (System.getenv("BENCH_LINES") != null) {
            for (IClassCoverage c : builder.getClasses()) {
                for (int i = c.getFirstLine(); i >= 0 && i <= c.getLastLine(); i++) {
                    ICounter b = c.getLine(i).getBranchCounter();
                    if (b.getTotalCount() > 0) {
                        System.err.println(c.getName().replace('/', '.') + " " + i + " " + b.getCoveredCount() + "/" + b.getTotalCount());
                    }
                }
            }
        }
    }
}
