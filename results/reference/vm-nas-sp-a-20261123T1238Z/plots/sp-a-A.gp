# Draws sp-a-A.png and sp-a-A.svg from sp-a-A.dat (written by sibench).
set terminal pngcairo size 960,600 noenhanced font 'sans,11'
set output 'sp-a-A.png'
set title 'NAS SP class A (study sp-a), 4 ranks'
set xlabel 'configuration'
set ylabel 'time of the timed steps (s), slowest rank'
set grid
set key outside right top
set style fill solid 0.6 border -1
set boxwidth 0.6
set xtics rotate by -30
set xzeroaxis
set yrange [*:*]
plot 'sp-a-A.dat' using 0:2:xtic(1) with boxes notitle, \
     '' using 0:2:(sprintf('%.2f s', $2)) with labels offset 0,1 notitle
set terminal svg size 960,600 noenhanced font 'sans,11' background '#ffffff'
set output 'sp-a-A.svg'
replot
unset output
