import java.io.File;

import org.jacoco.core.analysis.Analyzer;
import org.jacoco.core.analysis.CoverageBuilder;
import org.jacoco.core.analysis.IClassCoverage;
import org.jacoco.core.analysis.ICounter;
import org.jacoco.core.analysis.IMethodCoverage;
import org.jacoco.core.tools.ExecFileLoader;

/**
 * Reads a JaCoCo exec file (args[0]) against the class files under args[1..] and prints the
 * covered and total branches per method and per line of each method:
 * "M class method descriptor covered total" and "L class method descriptor line covered total"
 * (tab-separated), for methods and lines with branches.
 */
public class JacocoCoverage {
    public static void main(String[] args) throws Exception {
        ExecFileLoader loader = new ExecFileLoader();
        loader.load(new File(args[0]));
        CoverageBuilder builder = new CoverageBuilder();
        Analyzer analyzer = new Analyzer(loader.getExecutionDataStore(), builder);
        for (int i = 1; i < args.length; i++) {
            analyzer.analyzeAll(new File(args[i]));
        }
        for (IClassCoverage c : builder.getClasses()) {
            String cls = c.getName().replace('/', '.');
            for (IMethodCoverage m : c.getMethods()) {
                ICounter b = m.getBranchCounter();
                if (b.getTotalCount() == 0) {
                    continue;
                }
                String key = cls + "\t" + m.getName() + "\t" + m.getDesc();
                System.out.println("M\t" + key + "\t" + b.getCoveredCount() + "\t" + b.getTotalCount());
                for (int l = m.getFirstLine(); l <= m.getLastLine() && l > 0; l++) {
                    ICounter lb = m.getLine(l).getBranchCounter();
                    if (lb.getTotalCount() > 0) {
                        System.out.println("L\t" + key + "\t" + l + "\t" + lb.getCoveredCount() + "\t"
                                + lb.getTotalCount());
                    }
                }
            }
        }
    }
}
