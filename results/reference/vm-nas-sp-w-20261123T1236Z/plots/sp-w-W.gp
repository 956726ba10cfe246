# Draws sp-w-W.png and sp-w-W.svg from sp-w-W.dat (written by sibench).
set terminal pngcairo size 960,600 noenhanced font 'sans,11'
set output 'sp-w-W.png'
set title 'NAS SP class W (study sp-w): strong scaling'
set xlabel 'ranks'
set ylabel 'time of the timed steps (s), slowest rank'
set grid
set key outside right top
set logscale y
set logscale x 2
set xtics ('1' 1, '4' 4)
plot 'sp-w-W.dat' index 0 using 1:2 with linespoints lw 2 pt 7 title 'simpi-none', \
     '' index 1 using 1:2 with linespoints lw 2 pt 7 title 'simpi-thread', \
     '' index 2 using 1:2 with linespoints lw 2 pt 7 title 'simpi-smart-h1', \
     '' index 3 using 1:2 with linespoints lw 2 pt 7 title 'simpi-smart-h2', \
     '' index 4 using 1:2 with linespoints lw 2 pt 7 title 'mpich', \
     '' index 5 using 1:2 with linespoints lw 2 pt 7 title 'mpich-async'
set terminal svg size 960,600 noenhanced font 'sans,11' background '#ffffff'
set output 'sp-w-W.svg'
replot
unset output
