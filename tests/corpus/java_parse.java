// javac's parser, for tests/corpus/gate_languages.py: each path (relative to the root given as
// the argument) read from standard input is parsed, not attributed (JavacTask.parse, one JVM,
// 500 files a task); a line "path<TAB>line:column: message" names each file with a syntax
// error (its first), then "done<TAB>N".
import com.sun.source.util.JavacTask;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

public class JavaParse {
    public static void main(String[] args) throws Exception {
        Path root = Path.of(args[0]);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        List<String> names = new ArrayList<>();
        for (String line; (line = in.readLine()) != null; ) {
            if (!line.isEmpty()) names.add(line);
        }
        StandardJavaFileManager files = javac.getStandardFileManager(null, null, StandardCharsets.UTF_8);
        for (int i = 0; i < names.size(); i += 500) {
            List<File> chunk = new ArrayList<>();
            for (String name : names.subList(i, Math.min(names.size(), i + 500))) {
                chunk.add(root.resolve(name).toFile());
            }
            DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
            JavacTask task = (JavacTask) javac.getTask(null, files, diagnostics,
                List.of("-proc:none", "--release", "17"), null, files.getJavaFileObjectsFromFiles(chunk));
            task.parse();
            Set<String> named = new HashSet<>();
            for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                if (d.getKind() != Diagnostic.Kind.ERROR || d.getSource() == null) continue;
                String path = root.relativize(Path.of(d.getSource().toUri())).toString();
                if (named.add(path)) {
                    System.out.println(path + "\t" + d.getLineNumber() + ":" + d.getColumnNumber() + ": "
                        + d.getMessage(null).split("\n")[0]);
                }
            }
        }
        System.out.println("done\t" + names.size());
    }
}
