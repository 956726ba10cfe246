# Draws memory.png and memory.svg from memory.dat (written by sibench).
set terminal pngcairo size 960,600 noenhanced font 'sans,11'
set output 'memory.png'
set title 'Memory footprint relative to simpi-none (1 pair)'
set xlabel 'configuration'
set ylabel 'VmRSS after - simpi-none''s (KiB per rank, mean)'
set grid
set key outside right top
set style fill solid 0.6 border -1
set boxwidth 0.6
set xtics rotate by -30
set xzeroaxis
set yrange [*:*]
plot 'memory.dat' using 0:2:xtic(1) with boxes notitle, \
     '' using 0:2:(sprintf('%.0f', $2)) with labels offset 0,1 notitle
set terminal svg size 960,600 noenhanced font 'sans,11' background '#ffffff'
set output 'memory.svg'
replot
unset output
