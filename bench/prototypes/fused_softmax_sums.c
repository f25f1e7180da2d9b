/* Prototype, not part of the engine: the six softmax row sums of the one-pass gradient
 * (numeric/xor_blocks.py, BlockSums) fused into one loop over V, to measure how close plain
 * compiled code gets to one read of V. Built and timed by bench/prototypes/fused.py.
 * V (d x m) row-major, m <= 128; tiles of T <= 4096 rows: logits of both heads, running
 * maximum with rescaling, weights, then the six weighted row sums, four rows at a time. */
#include <math.h>
void fused(const double *V, long d, long m, const double *th1, const double *th2,
           long a, long b, double *M, double *S, double *Mom, long T) {
    double z1[4096], z2[4096], w[6][4096];
    double acc[6][128];
    for (int k = 0; k < 6; k++) for (long j = 0; j < m; j++) acc[k][j] = Mom[k * m + j];
    double M1 = M[0], M2 = M[1];
    for (long s = 0; s < d; s += T) {
        long e = s + T < d ? s + T : d, n = e - s;
        double bm1 = -INFINITY, bm2 = -INFINITY;
        for (long i = 0; i < n; i++) {
            const double *v = V + (s + i) * m;
            double a1 = 0, a2 = 0;
            for (long j = 0; j < m; j++) { a1 += v[j] * th1[j]; a2 += v[j] * th2[j]; }
            z1[i] = a1; z2[i] = a2;
            bm1 = a1 > bm1 ? a1 : bm1; bm2 = a2 > bm2 ? a2 : bm2;
        }
        if (bm1 > M1 || bm2 > M2) {
            double n1 = M1 > bm1 ? M1 : bm1, n2 = M2 > bm2 ? M2 : bm2;
            double al1 = exp(M1 - n1), al2 = exp(M2 - n2), p = al1 * al2;
            double f[6] = {al1, al2, al1 * al1, al2 * al2, p, p * p};
            for (int k = 0; k < 6; k++) { S[k] *= f[k]; for (long j = 0; j < m; j++) acc[k][j] *= f[k]; }
            M1 = n1; M2 = n2;
        }
        for (long i = 0; i < n; i++) {
            double e1 = exp(z1[i] - M1), e2 = exp(z2[i] - M2);
            if (s + i == a || s + i == b) { e1 = 0; e2 = 0; }
            double p = e1 * e2;
            w[0][i] = e1; w[1][i] = e2; w[2][i] = e1 * e1; w[3][i] = e2 * e2; w[4][i] = p; w[5][i] = p * p;
        }
        for (int k = 0; k < 6; k++) for (long i = 0; i < n; i++) S[k] += w[k][i];
        long i = 0;
        for (; i + 4 <= n; i += 4) {
            const double *v0 = V + (s + i) * m, *v1 = v0 + m, *v2 = v1 + m, *v3 = v2 + m;
            for (int k = 0; k < 6; k++) {
                double c0 = w[k][i], c1 = w[k][i + 1], c2 = w[k][i + 2], c3 = w[k][i + 3];
                double *ak = acc[k];
                for (long j = 0; j < m; j++) ak[j] += c0 * v0[j] + c1 * v1[j] + c2 * v2[j] + c3 * v3[j];
            }
        }
        for (; i < n; i++) {
            const double *v0 = V + (s + i) * m;
            for (int k = 0; k < 6; k++) { double c0 = w[k][i]; for (long j = 0; j < m; j++) acc[k][j] += c0 * v0[j]; }
        }
    }
    for (int k = 0; k < 6; k++) for (long j = 0; j < m; j++) Mom[k * m + j] = acc[k][j];
    M[0] = M1; M[1] = M2;
}
