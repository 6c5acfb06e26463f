#!/bin/sh
# The project's input generator: random numbers (so that a driver must
# generate them once and give both builds the same file).
mkdir -p ../../data/hostonly
i=0
while [ $i -lt 64 ]; do
	echo $(( $(od -An -N2 -tu2 /dev/urandom) % 1000 ))
	i=$((i + 1))
done > ../../data/hostonly/in.txt
