# Ruby's own parser, for tests/corpus/gate_languages.py: each path (relative to the root given as
# the argument) read from standard input is compiled to an instruction sequence, not run (what
# `ruby -c` does, for many files in one process); a line "path<TAB>message" names each file it
# rejects, then "done<TAB>N".
root = ARGV[0]
done = 0
$stdin.each_line do |line|
  rel = line.chomp
  next if rel.empty?
  begin
    RubyVM::InstructionSequence.compile(File.read(File.join(root, rel), encoding: "UTF-8"), rel)
  rescue SyntaxError, ArgumentError, EncodingError => e
    puts "#{rel}\t#{e.message.lines.first.to_s.strip}"
  end
  done += 1
end
puts "done\t#{done}"
