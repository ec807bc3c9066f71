/*
 * JacocoProbes: what each of JaCoCo's probes covers, one probe at a time.
 *
 * Usage:
 *   java -cp <org.jacoco.core.jar>:<asm jars>:<dir of this class> \
 *        JacocoProbes <classes-dir> <binary class name> [...]
 *
 * For every named class (read from <classes-dir>/<a/b/C>.class) JaCoCo 0.8.6 numbers its
 * probes (ClassProbesAdapter); then, for each probe i alone, execution data with only probe i
 * set is analysed (Analyzer + CoverageBuilder) and every method with covered branches is
 * printed. Output on stdout, tab-separated:
 *
 *   total  <class>  <probe count>
 *   hit    <class>  <i>  <method>  <descriptor>  <covered branches>
 *
 * Rivet's emulation of JaCoCo's probes (crates/rivet-analysis/src/probes.rs) must say the same.
 */

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

import org.jacoco.core.analysis.Analyzer;
import org.jacoco.core.analysis.CoverageBuilder;
import org.jacoco.core.analysis.IClassCoverage;
import org.jacoco.core.analysis.IMethodCoverage;
import org.jacoco.core.data.ExecutionData;
import org.jacoco.core.data.ExecutionDataStore;
import org.jacoco.core.internal.data.CRC64;
import org.jacoco.core.internal.flow.ClassProbesAdapter;
import org.jacoco.core.internal.flow.ClassProbesVisitor;
import org.jacoco.core.internal.flow.MethodProbesVisitor;
import org.objectweb.asm.ClassReader;

public final class JacocoProbes {

    /** Counts a class's probes. */
    private static final class Counter extends ClassProbesVisitor {
        int total;

        @Override
        public MethodProbesVisitor visitMethod(int access, String name, String desc,
                String signature, String[] exceptions) {
            return null;
        }

        @Override
        public void visitTotalProbeCount(int count) {
            total = count;
        }
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: JacocoProbes <classes-dir> <class> [<class> ...]");
            System.exit(2);
        }
        Path dir = Paths.get(args[0]);
        StringBuilder out = new StringBuilder();
        for (int a = 1; a < args.length; a++) {
            String name = args[a].replace('.', '/');
            byte[] bytes = Files.readAllBytes(dir.resolve(name + ".class"));
            Counter counter = new Counter();
            new ClassReader(bytes).accept(new ClassProbesAdapter(counter, false), 0);
            out.append("total\t").append(args[a]).append('\t').append(counter.total).append('\n');
            long id = CRC64.classId(bytes);
            for (int i = 0; i < counter.total; i++) {
                boolean[] probes = new boolean[counter.total];
                probes[i] = true;
                ExecutionDataStore store = new ExecutionDataStore();
                store.put(new ExecutionData(id, name, probes));
                CoverageBuilder builder = new CoverageBuilder();
                new Analyzer(store, builder).analyzeClass(bytes, name);
                for (IClassCoverage c : builder.getClasses()) {
                    for (IMethodCoverage m : c.getMethods()) {
                        int covered = m.getBranchCounter().getCoveredCount();
                        if (covered > 0) {
                            out.append("hit\t").append(args[a]).append('\t').append(i)
                                    .append('\t').append(m.getName()).append('\t')
                                    .append(m.getDesc()).append('\t').append(covered)
                                    .append('\n');
                        }
                    }
                }
            }
        }
        System.out.print(out);
    }
}
