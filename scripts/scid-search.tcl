# Scid's material and pattern search, for benchmarks:
#   tkscid scripts/scid-search.tcl BASE QUERY...
# BASE is a Scid database (scripts/scid-import.tcl makes one). Each QUERY is either
#   material:KRPvKR          each side's exact count of every piece kind (the king implied)
#   pattern:wn d 5,bp d 6    pieces on squares (Scid's "pattern" rows: piece, file, rank)
# Each is asked of every game with `sc_search material` (Scid's own search: it reads the
# games one by one), colours as given; prints "QUERY: N games, T ms" per query.
proc ::progressCallBack {args} {}
set base [sc_base open [lindex $argv 0]]

# The -wq … -bp ranges of a material signature such as KRPvKR (exact counts), or of any
# material when the signature is empty.
proc ranges {signature} {
  set out {}
  if {$signature eq ""} {
    foreach p {wq bq wr br wb bb wn bn} { lappend out -$p {0 10} }
    lappend out -wm {0 20} -bm {0 20} -wp {0 8} -bp {0 8}
    return $out
  }
  set sides [split $signature v]
  foreach side $sides colour {w b} {
    foreach letter {Q R B N P} {
      set n [regexp -all $letter $side]
      lappend out -$colour[string tolower $letter] [list $n $n]
    }
    set minors [expr {[regexp -all B $side] + [regexp -all N $side]}]
    lappend out -${colour}m [list $minors $minors]
  }
  return $out
}

foreach query [lrange $argv 1 end] {
  set kind [lindex [split $query :] 0]
  set what [join [lrange [split $query :] 1 end] :]
  set args {}
  if {$kind eq "material"} {
    set args [ranges $what]
  } elseif {$kind eq "pattern"} {
    set args [ranges ""]
    foreach p [split $what ,] { lappend args -patt "Yes $p" }
  } else {
    puts stderr "unknown query $query"
    exit 1
  }
  set t0 [clock milliseconds]
  sc_search material {*}$args -filter 2 -range {0 9999} -length 1 -bishops Either \
    -diff {-40 40} -flip 0
  set t1 [clock milliseconds]
  puts "$query: [sc_filter count $base dbfilter] games, [expr {$t1 - $t0}] ms"
}
sc_base close $base
exit
