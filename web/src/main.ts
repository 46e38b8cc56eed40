import './components/playground.js';
