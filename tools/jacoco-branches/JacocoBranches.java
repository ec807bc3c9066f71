/*
 * JacocoBranches: prints JaCoCo's per-method branch totals as TSV.
 *
 * Usage:
 *   java -cp <org.jacoco.core.jar>:<asm jars>:<dir of this class> \
 *        JacocoBranches <dir-or-jar> [<dir-or-jar> ...]
 *
 * Every class file found in the given directories (recursively, including
 * jars found inside them) and jars is analysed with JaCoCo's core API
 * (Analyzer + CoverageBuilder, no execution data). Output on stdout:
 *
 *   class<TAB>method<TAB>descriptor<TAB>branches
 *
 * one line per method JaCoCo reports, sorted by class, method, descriptor
 * (String.compareTo order). Class names are binary names with dots.
 * Classes JaCoCo refuses are reported on stderr and skipped; so is a second,
 * different class file with an already seen class name (the first wins).
 */

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

import org.jacoco.core.analysis.Analyzer;
import org.jacoco.core.analysis.CoverageBuilder;
import org.jacoco.core.analysis.IClassCoverage;
import org.jacoco.core.analysis.IMethodCoverage;
import org.jacoco.core.data.ExecutionDataStore;

public final class JacocoBranches {

    private static final int CLASS_MAGIC = 0xCAFEBABE;
    private static final int ZIP_MAGIC = 0x504B0304;

    private final CoverageBuilder builder = new FirstWinsBuilder();
    private final Analyzer analyzer =
            new Analyzer(new ExecutionDataStore(), builder);
    private int refused = 0;
    private int analysed = 0;

    public static void main(String[] args) throws IOException {
        if (args.length == 0) {
            System.err.println(
                    "usage: JacocoBranches <dir-or-jar> [<dir-or-jar> ...]");
            System.exit(2);
        }
        JacocoBranches tool = new JacocoBranches();
        for (String arg : args) {
            File f = new File(arg);
            if (!f.exists()) {
                System.err.println("error: no such file or directory: " + arg);
                System.exit(2);
            }
            tool.visitFile(f);
        }
        tool.print();
        if (tool.refused > 0) {
            System.err.println("note: " + tool.refused
                    + " class file(s) refused by JaCoCo and skipped");
        }
    }

    /** Directories are walked recursively (sorted, for stable stderr). */
    private void visitFile(File f) throws IOException {
        if (f.isDirectory()) {
            File[] children = f.listFiles();
            if (children == null) {
                System.err.println("error: cannot list directory " + f);
                return;
            }
            Arrays.sort(children);
            for (File c : children) {
                visitFile(c);
            }
            return;
        }
        byte[] bytes = Files.readAllBytes(f.toPath());
        visitContent(bytes, f.getPath());
    }

    /** Dispatches on content (like JaCoCo's own analyzeAll). */
    private void visitContent(byte[] bytes, String location)
            throws IOException {
        int magic = magic(bytes);
        if (magic == CLASS_MAGIC) {
            analyseClass(bytes, location);
        } else if (magic == ZIP_MAGIC) {
            visitZip(bytes, location);
        }
        // anything else (resources, sources, ...) is ignored
    }

    private void visitZip(byte[] bytes, String location) throws IOException {
        try (ZipInputStream zip = new ZipInputStream(
                new java.io.ByteArrayInputStream(bytes))) {
            ZipEntry entry;
            while ((entry = zip.getNextEntry()) != null) {
                if (entry.isDirectory()) {
                    continue;
                }
                byte[] content = readAll(zip);
                visitContent(content, location + "@" + entry.getName());
            }
        } catch (IOException e) {
            System.err.println("error: cannot read archive " + location
                    + ": " + e);
        }
    }

    private void analyseClass(byte[] bytes, String location) {
        try {
            analyzer.analyzeClass(bytes, location);
            analysed++;
        } catch (IOException | RuntimeException e) {
            refused++;
            StringBuilder msg = new StringBuilder();
            msg.append("skipped: ").append(location).append(": ");
            Throwable t = e;
            boolean first = true;
            while (t != null) {
                if (!first) {
                    msg.append(" / caused by ");
                }
                msg.append(t.getClass().getName());
                if (t.getMessage() != null) {
                    msg.append(": ").append(t.getMessage());
                }
                first = false;
                t = t.getCause() == t ? null : t.getCause();
            }
            System.err.println(msg);
        }
    }

    /**
     * JaCoCo's CoverageBuilder stores a class before it notices that a
     * different class (other CRC64 id) with the same name was already
     * added, so the later definition would silently replace the earlier one
     * while the later one is reported as failing. Check first instead: the
     * first definition wins and the later one is refused (stderr) and
     * skipped. Identical duplicates are accepted, as by JaCoCo.
     */
    private static final class FirstWinsBuilder extends CoverageBuilder {
        private final Map<String, Long> ids = new HashMap<>();

        @Override
        public void visitCoverage(IClassCoverage coverage) {
            Long previous = ids.get(coverage.getName());
            if (previous != null && previous.longValue() != coverage.getId()) {
                throw new IllegalStateException(
                        "Can't add different class with same name: "
                                + coverage.getName()
                                + " (first definition kept)");
            }
            ids.put(coverage.getName(), coverage.getId());
            super.visitCoverage(coverage);
        }
    }

    private static final class Row {
        final String cls;
        final String method;
        final String desc;
        final int branches;

        Row(String cls, String method, String desc, int branches) {
            this.cls = cls;
            this.method = method;
            this.desc = desc;
            this.branches = branches;
        }
    }

    private void print() {
        Collection<IClassCoverage> classes = builder.getClasses();
        List<Row> rows = new ArrayList<>();
        for (IClassCoverage cc : classes) {
            String cls = cc.getName().replace('/', '.');
            for (IMethodCoverage mc : cc.getMethods()) {
                rows.add(new Row(cls, mc.getName(), mc.getDesc(),
                        mc.getBranchCounter().getTotalCount()));
            }
        }
        rows.sort(Comparator.<Row, String>comparing(r -> r.cls)
                .thenComparing(r -> r.method)
                .thenComparing(r -> r.desc));
        PrintStream out = new PrintStream(
                new java.io.BufferedOutputStream(System.out, 1 << 16), false,
                StandardCharsets.UTF_8);
        out.print("class\tmethod\tdescriptor\tbranches\n");
        for (Row r : rows) {
            out.print(r.cls);
            out.print('\t');
            out.print(r.method);
            out.print('\t');
            out.print(r.desc);
            out.print('\t');
            out.print(r.branches);
            out.print('\n');
        }
        out.flush();
    }

    private static int magic(byte[] b) {
        if (b.length < 4) {
            return 0;
        }
        return ((b[0] & 0xFF) << 24) | ((b[1] & 0xFF) << 16)
                | ((b[2] & 0xFF) << 8) | (b[3] & 0xFF);
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        byte[] chunk = new byte[8192];
        int n;
        while ((n = in.read(chunk)) != -1) {
            buf.write(chunk, 0, n);
        }
        return buf.toByteArray();
    }
}
