# Scid's import, for benchmarks: tkscid scripts/scid-import.tcl BASE PGN...
# Creates a Scid database BASE (.si4/.sg4/.sn4) and imports the PGN files into it, then
# prints the number of games and the milliseconds the imports took.
set base [sc_base create [lindex $argv 0]]
set t0 [clock milliseconds]
foreach f [lrange $argv 1 end] {
  sc_base import $base $f
}
set t1 [clock milliseconds]
puts "games [sc_base numGames $base] ms [expr {$t1 - $t0}]"
sc_base close $base
exit
