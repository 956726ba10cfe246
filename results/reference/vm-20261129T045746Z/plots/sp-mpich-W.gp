# Draws sp-mpich-W.png and sp-mpich-W.svg from sp-mpich-W.dat (written by sibench).
set terminal pngcairo size 960,600 noenhanced font 'sans,11'
set output 'sp-mpich-W.png'
set title 'NAS SP class W (study sp-mpich), 4 ranks'
set xlabel 'configuration'
set ylabel 'time of the timed steps (s), slowest rank'
set grid
set key outside right top
set style fill solid 0.6 border -1
set boxwidth 0.6
set xtics rotate by -30
set xzeroaxis
set yrange [*:*]
plot 'sp-mpich-W.dat' using 0:2:xtic(1) with boxes notitle, \
     '' using 0:2:(sprintf('%.2f s', $2)) with labels offset 0,1 notitle
set terminal svg size 960,600 noenhanced font 'sans,11' background '#ffffff'
set output 'sp-mpich-W.svg'
replot
unset output
